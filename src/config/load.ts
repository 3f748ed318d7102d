import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configSchema, ENVIRONMENT_VARIABLES, type GatewayConfig } from './schema.js';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const DEFAULT_FILE = fileURLToPath(new URL('../../config/default.json', import.meta.url));

type Tree = Record<string, unknown>;

function setPath(tree: Tree, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = tree;
  for (const part of parts.slice(0, -1)) {
    const child = node[part];
    if (typeof child !== 'object' || child === null) node[part] = {};
    node = node[part] as Tree;
  }
  node[parts.at(-1) as string] = value;
}

function parseEnvValue(raw: string, kind: 'string' | 'int' | 'list'): unknown {
  if (kind === 'list') {
    return raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }
  if (kind === 'int') return /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
  return raw;
}

/**
 * Reads config/default.json, applies the environment variables over it and validates the result.
 * Every problem is reported at once, named by the environment variable that sets it.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, defaultsFile = DEFAULT_FILE): GatewayConfig {
  const tree = JSON.parse(readFileSync(defaultsFile, 'utf8')) as Tree;
  for (const variable of ENVIRONMENT_VARIABLES) {
    const raw = env[variable.name];
    if (raw === undefined || raw === '') continue;
    setPath(tree, variable.path, parseEnvValue(raw, variable.kind));
  }
  const parsed = configSchema.safeParse(tree);
  if (parsed.success) return parsed.data;

  const envByPath = new Map(ENVIRONMENT_VARIABLES.map((variable) => [variable.path, variable.name]));
  const problems = parsed.error.issues.map((issue) => {
    const path = issue.path.join('.');
    const name = envByPath.get(path) ?? envByPath.get(issue.path.slice(0, 2).join('.')) ?? path;
    const given = env[name];
    const shown =
      given === undefined || /SECRET|PASSWORD|KEY$/.test(name) ? '' : ` (got "${redactCredentials(given)}")`;
    return `${name}: ${issue.message}${shown}`;
  });
  throw new ConfigError(problems);
}

/**
 * Hides the credentials of a URL-like value before it goes into a message. Whatever comes before the
 * last "@" (after a "scheme:" or "scheme://") is user information: its password (after the first ":")
 * becomes "***"; after a scheme, a lone user name (which may be a token) becomes "***" too.
 */
export function redactCredentials(value: string): string {
  const at = value.lastIndexOf('@');
  if (at < 0) return value;
  const head = /^[A-Za-z][A-Za-z0-9+.-]*:(\/\/)?/.exec(value.slice(0, at))?.[0] ?? '';
  const userinfo = value.slice(head.length, at);
  const colon = userinfo.indexOf(':');
  if (colon >= 0) return `${head}${userinfo.slice(0, colon)}:***${value.slice(at)}`;
  return head === '' ? value : `${head}***${value.slice(at)}`;
}
