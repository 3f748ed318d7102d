import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { authenticate, createVerifier, usableSecrets } from '../../../src/s3/authenticate.js';
import { createExchange, type S3Exchange } from '../../../src/s3/exchange.js';
import type { AccessCache } from '../../../src/store/access-cache.js';
import type { CredentialRecord } from '../../../src/store/records.js';
import { sha256Hex, signedHeaders } from '../../support/s3/raw-requests.js';

const BASE = 'http://s3.local:9000';

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

function exchangeFor(headers: Record<string, string>, target = '/b-1/k'): S3Exchange {
  const lower = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const request = {
    method: 'GET',
    url: target,
    headers: lower,
    headersDistinct: Object.fromEntries(Object.entries(lower).map(([name, value]) => [name, [value]])),
  } as unknown as http.IncomingMessage;
  return createExchange(request, {} as http.ServerResponse);
}

async function signedExchange(secret: string, accessKeyId = 'GWK1TESTTESTTESTTEST'): Promise<S3Exchange> {
  const headers = await signedHeaders({
    credential: { accessKeyId, secret },
    method: 'GET',
    baseUrl: BASE,
    path: '/b-1/k',
    payloadHash: sha256Hex(''),
  });
  return exchangeFor(headers);
}

async function outcome(cache: AccessCache, exchange: S3Exchange): Promise<string> {
  try {
    const identity = await authenticate(
      exchange,
      cache,
      createVerifier(cache, { regions: ['us-east-1'], maxSkewSeconds: 900 }),
    );
    return identity.kind === 'credential'
      ? `credential ${identity.form} ${identity.payloadHash}`
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
    expect(usableSecrets(afterGrace, new Date())).toEqual([afterGrace.secret]);
  });

  it('remembers the named access key for the log, even when refused', async () => {
    const exchange = await signedExchange('x', 'GWK1UNKNOWNUNKNOWNUN');
    await outcome(cacheWith(null), exchange);
    expect(exchange.accessKeyId).toBe('GWK1UNKNOWNUNKNOWNUN');
  });
});
