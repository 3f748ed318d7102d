import { readFileSync } from 'node:fs';
import { UsageError } from './errors.js';
import type { Schemas } from './api-client.js';

type CorsRules = Schemas['CorsRulesUpdate'];

/**
 * CORS rules from a JSON or YAML file ("-": stdin), as `{rules: [...]}` or the list of rules
 * alone. Only the document's shape is checked here; the gateway validates each rule and names
 * every bad field.
 */
export async function readCorsRules(file: string): Promise<CorsRules> {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let document: unknown;
  try {
    // YAML loads only when needed: most commands never parse a file.
    document = /\.json$/i.test(file) ? JSON.parse(text) : (await import('yaml')).parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new UsageError(
      `${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML or JSON'}: ${message}`,
    );
  }
  const rules = Array.isArray(document)
    ? document
    : typeof document === 'object' &&
        document !== null &&
        Array.isArray((document as { rules?: unknown }).rules)
      ? (document as { rules: unknown[] }).rules
      : null;
  if (rules === null) {
    throw new UsageError(`${file} must hold a list of CORS rules, or an object whose "rules" is that list`);
  }
  return { rules: rules as CorsRules['rules'] };
}
