import { readFileSync } from 'node:fs';

/**
 * The project's version, read from package.json beside src/ (from a checkout) or dist/ (a build,
 * as in the container image): both are two folders above this module.
 */
export function cliVersion(): string {
  try {
    const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
