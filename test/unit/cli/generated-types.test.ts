import { readFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';

describe('the CLI client types', () => {
  it('are generated from openapi/openapi.json as it is now (npm run generate:api)', async () => {
    const document = new URL('../../../openapi/openapi.json', import.meta.url);
    const generated = readFileSync(
      new URL('../../../src/cli/generated/control-plane.ts', import.meta.url),
      'utf8',
    );
    const expected = astToString(await openapiTS(document));
    // The command line adds a header of its own; the declarations must match.
    expect(generated.slice(generated.indexOf('export '))).toBe(expected.slice(expected.indexOf('export ')));
  });
});
