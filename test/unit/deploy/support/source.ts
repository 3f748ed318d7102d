import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ENVIRONMENT_VARIABLES } from '../../../../src/config/schema.js';
import { repoPath } from './compose.js';

/** The gateway's TypeScript sources, as paths relative to the repository root. */
export function sourceFiles(dir = 'src'): string[] {
  return readdirSync(repoPath(dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [relative] : [];
  });
}

/**
 * Every environment variable the gateway reads: the configuration's ENVIRONMENT_VARIABLES and the few
 * read straight from process.env (such as GATEWAY_BUILD_COMMIT).
 */
export function variablesTheGatewayReads(): Set<string> {
  const names = new Set(ENVIRONMENT_VARIABLES.map((variable) => variable.name));
  for (const file of sourceFiles()) {
    const text = readFileSync(repoPath(file), 'utf8');
    for (const match of text.matchAll(
      /process\.env(?:\.([A-Z_][A-Z0-9_]*)|\[\s*['"]([A-Z_][A-Z0-9_]*)['"]\s*\])/g,
    )) {
      names.add((match[1] ?? match[2]) as string);
    }
  }
  return names;
}

/**
 * Files the code opens relative to its own module (`new URL('<relative>', import.meta.url)`), with the
 * module that does it, e.g. { module: 'src/store/migrate.ts', relative: './migrations/' }.
 */
export function moduleRelativeFiles(): Array<{ module: string; relative: string }> {
  return sourceFiles().flatMap((module) => {
    const text = readFileSync(repoPath(module), 'utf8');
    return [...text.matchAll(/new URL\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g)].map((match) => ({
      module,
      relative: match[2] as string,
    }));
  });
}
