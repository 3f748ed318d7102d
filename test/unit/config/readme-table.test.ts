/**
 * The README's configuration table is where operators look a setting up: it must name every
 * variable the configuration reads, and nothing the gateway does not read.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema, ENVIRONMENT_VARIABLES } from '../../../src/config/schema.js';
import { repoPath } from '../deploy/support/compose.js';
import { variablesTheGatewayReads } from '../deploy/support/source.js';

/** The variables named in the first column of the table under README.md's "## Configuration". */
function readmeTableVariables(): string[] {
  const readme = readFileSync(repoPath('README.md'), 'utf8');
  const start = readme.indexOf('\n## Configuration\n');
  expect(start, 'README.md has no "## Configuration" section').toBeGreaterThan(-1);
  const section = readme.slice(start + 1).split(/\n## /)[0] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('|'));
  const names = rows.slice(2).flatMap((row) => {
    const firstCell = row.split('|')[1] ?? '';
    return [...firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1] as string);
  });
  expect(names.length, 'no variables found in the configuration table').toBeGreaterThan(0);
  return names;
}

/** Dotted paths of every setting in the schema (objects are walked, everything else is a setting). */
function schemaSettingPaths(schema: z.ZodType, prefix = ''): string[] {
  if (!(schema instanceof z.ZodObject)) return [prefix];
  return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, child]) =>
    schemaSettingPaths(child, prefix === '' ? key : `${prefix}.${key}`),
  );
}

describe("README.md's configuration table", () => {
  it('names every environment variable of the configuration', () => {
    const documented = new Set(readmeTableVariables());
    const missing = ENVIRONMENT_VARIABLES.map((variable) => variable.name).filter(
      (name) => !documented.has(name),
    );
    expect(missing, 'variables of src/config/schema.ts missing from the README table').toEqual([]);
  });

  it('names no variable the gateway does not read', () => {
    const read = variablesTheGatewayReads();
    const extra = readmeTableVariables().filter((name) => !read.has(name));
    expect(extra, 'variables in the README table that the gateway never reads').toEqual([]);
  });

  it('names each variable once', () => {
    const names = readmeTableVariables();
    const repeated = names.filter((name, index) => names.indexOf(name) !== index);
    expect(repeated, 'variables listed more than once in the README table').toEqual([]);
  });
});

describe('the configuration schema', () => {
  it('has an environment variable for every setting, so the table covers them all', () => {
    const withVariable = new Set(ENVIRONMENT_VARIABLES.map((variable) => variable.path));
    const without = schemaSettingPaths(configSchema).filter((path) => !withVariable.has(path));
    expect(without, 'settings of configSchema with no entry in ENVIRONMENT_VARIABLES').toEqual([]);
  });
});
