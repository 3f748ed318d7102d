import { describe, expect, it } from 'vitest';
import { describeScope, scopeOf } from '../../../src/cli/commands/credentials.js';

describe('s3gw credentials scope options', () => {
  it('turns --prefix bucket=prefix (repeated) into the scope’s prefixes per bucket', () => {
    expect(
      scopeOf({
        bucket: ['photos', 'docs'],
        readOnly: true,
        prefix: ['photos=users/42/', 'photos=shared/', 'docs=a=b/'],
      }),
    ).toEqual({
      buckets: ['photos', 'docs'],
      level: 'read-only',
      prefixes: { photos: ['users/42/', 'shared/'], docs: ['a=b/'] },
    });
  });

  it('refuses a --prefix without a bucket or a prefix', () => {
    for (const prefix of ['users/42/', '=users/', 'photos=']) {
      expect(() => scopeOf({ bucket: ['photos'], readOnly: true, prefix: [prefix] })).toThrow(
        /expected <bucket>=<prefix>/,
      );
    }
  });

  it('says which buckets are limited to which prefixes', () => {
    expect(
      describeScope({
        buckets: ['photos', 'docs'],
        level: 'read-write',
        prefixes: { photos: ['users/42/'] },
      }),
    ).toBe('read-write on photos, docs (photos only under users/42/)');
    expect(describeScope({ buckets: ['*'], level: 'read-only' })).toBe('read-only on all buckets');
  });
});
