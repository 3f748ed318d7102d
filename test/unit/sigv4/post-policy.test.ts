import { describe, expect, it } from 'vitest';
import { checkPostPolicy, parsePostPolicy } from '../../../src/sigv4/post-policy.js';

function encode(document: unknown): string {
  return Buffer.from(JSON.stringify(document)).toString('base64');
}

const NOW = new Date('2026-11-25T12:00:00Z');
/** The form's x-amz-date: a minute before it arrives. */
const TIMES = { now: NOW, signedAt: new Date('2026-11-25T11:59:00Z') };

describe('form upload policies', () => {
  it('reads the expiration and each kind of condition, and refuses any other shape', () => {
    const policy = parsePostPolicy(
      encode({
        expiration: '2026-11-25T13:00:00.000Z',
        conditions: [
          { bucket: 'b' },
          ['eq', '$Key', 'k'],
          ['starts-with', '$Content-Type', 'image/'],
          ['content-length-range', 1, 10],
        ],
      }),
    );
    expect(policy?.expiration.toISOString()).toBe('2026-11-25T13:00:00.000Z');
    expect(policy?.conditions.map((condition) => condition.kind)).toEqual([
      'eq',
      'eq',
      'starts-with',
      'content-length-range',
    ]);
    for (const bad of [
      'not base64!',
      encode('a string'),
      encode({ conditions: [] }),
      encode({ expiration: 'tomorrow', conditions: [] }),
      encode({ expiration: '2026-11-25T13:00:00Z', conditions: [['between', '$key', 'a']] }),
      encode({ expiration: '2026-11-25T13:00:00Z', conditions: [['content-length-range', 10, 1]] }),
      encode({ expiration: '2026-11-25T13:00:00Z', conditions: [{ a: '1', b: '2' }] }),
    ]) {
      expect(parsePostPolicy(bad), bad).toBeNull();
    }
  });

  it('holds every field to a condition, names the first that fails, and lists fields no condition names', () => {
    const policy = parsePostPolicy(
      encode({
        expiration: '2026-11-25T13:00:00Z',
        conditions: [
          { bucket: 'photos' },
          ['starts-with', '$key', 'users/42/'],
          ['starts-with', '$x-amz-meta-tag', ''],
          ['content-length-range', 0, 1024],
        ],
      }),
    )!;
    const fields = (extra: Record<string, string> = {}) =>
      new Map(
        Object.entries({
          bucket: 'photos',
          key: 'users/42/a.jpg',
          policy: 'p',
          'x-amz-signature': 's',
          ...extra,
        }),
      );
    expect(checkPostPolicy(policy, fields(), TIMES)).toEqual({
      ok: true,
      lengthRange: { min: 0, max: 1024 },
    });
    expect(checkPostPolicy(policy, fields({ key: 'users/43/a.jpg' }), TIMES)).toEqual({
      ok: false,
      failure: 'condition',
      detail: '["starts-with","$key","users/42/"]',
    });
    expect(
      checkPostPolicy(policy, fields({ 'x-amz-meta-owner': 'me', 'x-ignore-note': 'free' }), TIMES),
    ).toEqual({
      ok: false,
      failure: 'extra-field',
      detail: 'x-amz-meta-owner',
    });
    expect(
      checkPostPolicy(policy, fields(), { ...TIMES, now: new Date('2026-11-25T13:00:00Z') }),
    ).toMatchObject({
      ok: false,
      failure: 'expired',
    });
  });

  it('lives at most 7 days (604800 s) after its x-amz-date, however late its expiration', () => {
    const signedAt = new Date('2026-11-25T12:00:00Z');
    const expiring = (expiration: string) =>
      parsePostPolicy(encode({ expiration, conditions: [{ bucket: 'b' }] }))!;
    const fields = new Map([['bucket', 'b']]);
    const times = { now: new Date('2026-11-25T12:05:00Z'), signedAt };
    for (const expiration of ['2026-12-02T12:00:00Z', '2026-12-02T12:00:00.999Z']) {
      expect(checkPostPolicy(expiring(expiration), fields, times), expiration).toEqual({
        ok: true,
        lengthRange: null,
      });
    }
    for (const expiration of ['2026-12-02T12:00:01Z', '2027-11-25T12:00:00Z']) {
      expect(checkPostPolicy(expiring(expiration), fields, times), expiration).toEqual({
        ok: false,
        failure: 'lifetime',
        detail: '',
      });
    }
  });
});
