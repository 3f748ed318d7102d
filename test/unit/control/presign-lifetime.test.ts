import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_PRESIGN_SECONDS } from '../../../src/protocol/limits.js';

/**
 * tsoa validates the presign request against the annotations of control/models/buckets.ts, which
 * cannot import a constant: this keeps the number they state the same as the storage endpoint's.
 */
describe('the control plane presigns for at most the lifetime the storage endpoint accepts', () => {
  const doc = JSON.parse(readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8')) as {
    components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
  };
  const expiresIn = doc.components.schemas.PresignRequest?.properties.expiresIn;

  it('validates expiresIn against the spec limit of seven days', () => {
    expect(MAX_PRESIGN_SECONDS).toBe(604_800);
    expect(expiresIn).toMatchObject({ type: 'integer', minimum: 1, maximum: MAX_PRESIGN_SECONDS });
  });
});
