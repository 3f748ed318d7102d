import { readFileSync } from 'node:fs';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { renderCompatibilityPage } from '../../../scripts/compatibility-page.js';
import { OPERATION_CATALOGUE, type CatalogueEntry } from '../../../src/s3/operation-catalogue.js';
import { parseQuery } from '../../../src/protocol/query.js';
import { classifyOperation } from '../../../src/s3/operations.js';

const PAGE = new URL('../../../docs/s3-compatibility.md', import.meta.url);

describe('the S3 compatibility page', () => {
  it('is what the operation catalogue renders (npm run generate:docs after changing it)', async () => {
    const options = (await prettier.resolveConfig(PAGE.pathname)) ?? {};
    const rendered = await prettier.format(renderCompatibilityPage(), { ...options, parser: 'markdown' });
    expect(readFileSync(PAGE, 'utf8')).toBe(rendered);
  });

  it('lists every operation once, each with what the endpoint does', () => {
    const names = OPERATION_CATALOGUE.map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
    const page = readFileSync(PAGE, 'utf8');
    for (const name of names) expect(page).toMatch(new RegExp(`^\\| ${name}[ |(]`, 'm'));
  });

  it('routes each request of the catalogue to its own entry, except those other endpoints receive', () => {
    for (const entry of OPERATION_CATALOGUE as readonly CatalogueEntry[]) {
      if (entry.unroutable !== undefined) continue;
      const parts = [entry.subresource, entry.withId === true ? 'id=x' : null, entry.selector ?? null];
      const query = parseQuery(parts.filter((part) => part !== null).join('&'));
      const result = classifyOperation(entry.method, entry.level, query, entry.copy === true);
      const routedTo = result.ok
        ? result.operation.name
        : result.label === 'BucketConfigurationWrite'
          ? 'bucket-write'
          : result.notOffered?.name;
      expect(routedTo, entry.name).toBe(
        entry.treatment.kind === 'bucket-write' ? 'bucket-write' : entry.name,
      );
    }
  });
});
