import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { renderCompatibilityPage } from '../../../scripts/compatibility-page.js';
import {
  namingParameter,
  OPERATION_CATALOGUE,
  type CatalogueEntry,
} from '../../../src/s3/operation-catalogue.js';
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
      const parts = [
        entry.subresource,
        entry.withId === true ? `${namingParameter(entry)}=x` : null,
        entry.selector ?? null,
        // A part write names its part (operations.ts refuses one that does not).
        entry.name === 'UploadPart' || entry.name === 'UploadPartCopy' ? 'partNumber=1' : null,
      ];
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

/** The commands of the pinned @aws-sdk/client-s3, one file per command. */
const SDK_COMMANDS = readdirSync(
  fileURLToPath(new URL('../../../node_modules/@aws-sdk/client-s3/dist-types/commands', import.meta.url)),
)
  .filter((file) => file.endsWith('Command.d.ts'))
  .map((file) => file.slice(0, -'Command.d.ts'.length));

describe('the operation catalogue against the AWS SDK for JavaScript', () => {
  it('has an entry for every command of @aws-sdk/client-s3, so an SDK upgrade cannot add an unlisted one', () => {
    // An SDK command that is no S3 request to this endpoint still gets an entry, marked `unroutable`
    // with the reason (as WriteGetObjectResponse is): the page lists it, and nothing routes to it.
    const listed = new Set(
      (OPERATION_CATALOGUE as readonly CatalogueEntry[]).flatMap((entry) => [
        entry.name,
        ...(entry.aliases ?? []),
      ]),
    );
    expect(SDK_COMMANDS.length).toBeGreaterThan(100);
    expect(SDK_COMMANDS.filter((command) => !listed.has(command))).toEqual([]);
  });

  it('names its operations as the SDK does; only the browser form upload has no SDK command', () => {
    const commands = new Set(SDK_COMMANDS);
    const unknown = OPERATION_CATALOGUE.map((entry) => entry.name).filter((name) => !commands.has(name));
    expect(unknown).toEqual(['PostObject']);
  });
});
