import { describe, expect, it } from 'vitest';
import type { Addressed } from '../../../src/s3/stages.js';
import { authenticate, createVerifier, usableSecrets } from '../../../src/s3/steps/authenticate.js';
import type { AccessCache } from '../../../src/store/access-cache.js';
import type { CredentialRecord } from '../../../src/store/records.js';
import { sha256Hex, signedHeaders } from '../../support/s3/raw-requests.js';
import { addressedFor } from '../../support/s3/stages.js';

const BASE = 'http://s3.local';

function record(overrides: Partial<CredentialRecord> = {}): CredentialRecord {
  return {
    accessKeyId: 'GWK1TESTTESTTESTTEST',
    organisationId: 'org-1',
    name: 'test',
    secret: 'current-secret-current-secret-current-00',
    previousSecret: null,
    previousSecretValidUntil: null,
    scope: { buckets: ['*'], level: 'read-write' },
    expiresAt: null,
    createdBy: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    lastUsedAt: null,
    ...overrides,
  };
}

function cacheWith(credential: CredentialRecord | null): AccessCache {
  return {
    credential: async (id: string) => (credential?.accessKeyId === id ? credential : null),
  } as AccessCache;
}

function exchangeFor(headers: Record<string, string>, target = '/b-1/k'): Addressed {
  return addressedFor('GET', target, headers);
}

async function signedExchange(secret: string, accessKeyId = 'GWK1TESTTESTTESTTEST'): Promise<Addressed> {
  const headers = await signedHeaders({
    credential: { accessKeyId, secret },
    method: 'GET',
    baseUrl: BASE,
    path: '/b-1/k',
    payloadHash: sha256Hex(''),
  });
  return exchangeFor(headers);
}

async function outcome(cache: AccessCache, stage: Addressed): Promise<string> {
  try {
    const { identity } = await authenticate(
      stage,
      createVerifier(cache, { regions: ['us-east-1'], maxSkewSeconds: 900 }),
    );
    return identity.kind === 'credential'
      ? `credential ${identity.form} ${identity.payloadMode}`
      : 'anonymous';
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as { definition: { message: string } }).definition.message}`;
  }
}

describe('authenticate', () => {
  it('treats a request with no signature as anonymous', async () => {
    expect(await outcome(cacheWith(record()), exchangeFor({ 'user-agent': 'curl/8' }))).toBe('anonymous');
  });

  it("verifies a header signature with the credential's secret", async () => {
    const credential = record();
    expect(await outcome(cacheWith(credential), await signedExchange(credential.secret))).toBe(
      `credential header ${sha256Hex('')}`,
    );
    expect(await outcome(cacheWith(credential), await signedExchange('wrong-secret'))).toMatch(
      /^SignatureDoesNotMatch/,
    );
  });

  it('refuses unknown keys and expired credentials with their own errors', async () => {
    expect(await outcome(cacheWith(null), await signedExchange('x'))).toMatch(/^InvalidAccessKeyId/);
    const expired = record({ expiresAt: new Date(Date.now() - 1) });
    expect(await outcome(cacheWith(expired), await signedExchange(expired.secret))).toBe(
      'AccessDenied: This access key has expired.',
    );
    const future = record({ expiresAt: new Date(Date.now() + 60_000) });
    expect(await outcome(cacheWith(future), await signedExchange(future.secret))).toMatch(/^credential/);
  });

  it("accepts a rotated key's previous secret only until its grace period ends", async () => {
    const inGrace = record({
      previousSecret: 'old-secret',
      previousSecretValidUntil: new Date(Date.now() + 60_000),
    });
    expect(await outcome(cacheWith(inGrace), await signedExchange('old-secret'))).toMatch(/^credential/);
    const afterGrace = record({
      previousSecret: 'old-secret',
      previousSecretValidUntil: new Date(Date.now() - 1),
    });
    expect(await outcome(cacheWith(afterGrace), await signedExchange('old-secret'))).toMatch(
      /^SignatureDoesNotMatch/,
    );
    expect(usableSecrets(afterGrace, Date.now())).toEqual([afterGrace.secret]);
  });

  it('remembers the named access key for the log, even when refused', async () => {
    const stage = await signedExchange('x', 'GWK1UNKNOWNUNKNOWNUN');
    await outcome(cacheWith(null), stage);
    expect(stage.exchange.accessKeyId).toBe('GWK1UNKNOWNUNKNOWNUN');
  });
});

describe('the body plan of an authenticated request', () => {
  it("checks a completion's x-amz-checksum-* against the object, not against its XML body", async () => {
    const credential = record();
    const cache = cacheWith(credential);
    const verifier = createVerifier(cache, { regions: ['us-east-1'], maxSkewSeconds: 900 });
    const plan = async (query: Record<string, string>, target: string) => {
      const headers = await signedHeaders({
        credential: { accessKeyId: credential.accessKeyId, secret: credential.secret },
        method: 'POST',
        baseUrl: BASE,
        path: '/b-1/k',
        query,
        payloadHash: 'UNSIGNED-PAYLOAD',
        headers: { 'x-amz-checksum-crc32': 'AAAAAA==', 'content-length': '10' },
      });
      return (await authenticate(addressedFor('POST', target, headers), verifier)).bodyPlan;
    };
    const completion = await plan({ uploadId: 'u' }, '/b-1/k?uploadId=u');
    expect(completion.ok && completion.checksum).toBeUndefined();
    expect(await plan({ uploads: '' }, '/b-1/k?uploads=')).toMatchObject({
      ok: true,
      checksum: { algorithm: 'CRC32', source: 'header' },
    });
  });
});
