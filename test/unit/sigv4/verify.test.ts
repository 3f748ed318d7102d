import { describe, expect, it } from 'vitest';

import { EMPTY_SHA256 } from '../../../src/protocol/headers.js';
import { buildCanonicalRequest, canonicalUri, stringToSign } from '../../../src/sigv4/canonical.js';
import { deriveSigningKey, signStringToSign } from '../../../src/sigv4/signing-key.js';
import type { Authentication, VerifyOptions } from '../../../src/sigv4/verify.js';
import { headersFromLines, loadFixture, presignWithSmithy, signWithSmithy } from './helpers.js';
import {
  verifierOf,
  verifyRequestOf,
  verifyTarget,
  type SecretLookup,
  type TargetRequest,
} from '../../support/sigv4.js';

interface DocExample {
  name: string;
  method: string;
  target: string;
  headers: [string, string][];
  signedHeaders?: string;
  signature: string;
}

interface DocExamples {
  accessKeyId: string;
  secretAccessKey: string;
  now: string;
  headerExamples: DocExample[];
  presignedExample: DocExample;
}

const docs = loadFixture<DocExamples>('aws-s3-doc-examples.json');
const DOC_NOW = new Date(docs.now);

const AKID = 'GWTESTKEY0000000001';
const SECRET = 'test-secret/with+chars=0123456789abcdefghij';
const OLD_SECRET = 'previous-secret-still-in-grace-period000';
const NOW = new Date('2025-01-01T12:00:00Z');
const HOST = 'bucket.s3.example.test';
const OPTIONS: VerifyOptions = { allowedRegions: ['us-east-1', 'auto'] };

function lookupOf(table: Record<string, readonly string[]>): SecretLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (accessKeyId: string) => {
    calls.push(accessKeyId);
    const secrets = table[accessKeyId];
    return secrets === undefined ? null : { secrets };
  };
  return Object.assign(lookup, { calls });
}

const lookup = lookupOf({ [AKID]: [SECRET], [docs.accessKeyId]: [docs.secretAccessKey] });

function expectFailure(result: Authentication<object>, error: string): void {
  expect(result.ok ? 'ok' : result.error).toBe(error);
}

interface SignOptions {
  method?: string;
  path?: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  secret?: string;
  accessKeyId?: string;
  region?: string;
  service?: string;
  signingDate?: Date;
}

async function signedRequest(options: SignOptions = {}): Promise<TargetRequest> {
  const signed = await signWithSmithy({
    method: options.method ?? 'GET',
    host: HOST,
    path: options.path ?? '/bucket/key.txt',
    ...(options.query === undefined ? {} : { query: options.query }),
    headers: { 'x-amz-content-sha256': EMPTY_SHA256, ...options.headers },
    accessKeyId: options.accessKeyId ?? AKID,
    secret: options.secret ?? SECRET,
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.service === undefined ? {} : { service: options.service }),
    signingDate: options.signingDate ?? NOW,
  });
  return { method: options.method ?? 'GET', rawTarget: signed.rawTarget, headers: signed.headers, now: NOW };
}

async function presignedRequest(
  options: SignOptions & { expiresIn?: number; now?: Date } = {},
): Promise<TargetRequest> {
  const signed = await presignWithSmithy({
    method: options.method ?? 'GET',
    host: HOST,
    path: options.path ?? '/bucket/key.txt',
    ...(options.query === undefined ? {} : { query: options.query }),
    accessKeyId: options.accessKeyId ?? AKID,
    secret: options.secret ?? SECRET,
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.service === undefined ? {} : { service: options.service }),
    signingDate: options.signingDate ?? NOW,
    expiresIn: options.expiresIn ?? 3600,
  });
  return {
    method: options.method ?? 'GET',
    rawTarget: signed.rawTarget,
    headers: signed.headers,
    now: options.now ?? NOW,
  };
}

function withHeaders(request: TargetRequest, changes: Record<string, string | undefined>): TargetRequest {
  const headers: Record<string, string | readonly string[] | undefined> = { ...request.headers };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return { ...request, headers };
}

describe('S3 documentation examples', () => {
  for (const example of docs.headerExamples) {
    it(`verifies "${example.name}"`, async () => {
      const headers = headersFromLines([
        ...example.headers,
        [
          'Authorization',
          `AWS4-HMAC-SHA256 Credential=${docs.accessKeyId}/20130524/us-east-1/s3/aws4_request, SignedHeaders=${example.signedHeaders ?? ''}, Signature=${example.signature}`,
        ],
      ]);
      const result = await verifyTarget(
        { method: example.method, rawTarget: example.target, headers, now: DOC_NOW },
        lookup,
        OPTIONS,
      );
      expect(result).toMatchObject({
        ok: true,
        accessKeyId: docs.accessKeyId,
        form: 'header',
        scope: { date: '20130524', region: 'us-east-1', service: 's3' },
      });
    });

    it(`rejects "${example.name}" with one signature nibble changed`, async () => {
      const tampered = `${example.signature.slice(0, -1)}${example.signature.endsWith('0') ? '1' : '0'}`;
      const headers = headersFromLines([
        ...example.headers,
        [
          'Authorization',
          `AWS4-HMAC-SHA256 Credential=${docs.accessKeyId}/20130524/us-east-1/s3/aws4_request, SignedHeaders=${example.signedHeaders ?? ''}, Signature=${tampered}`,
        ],
      ]);
      const result = await verifyTarget(
        { method: example.method, rawTarget: example.target, headers, now: DOC_NOW },
        lookup,
        OPTIONS,
      );
      expectFailure(result, 'SignatureDoesNotMatch');
    });
  }

  it('returns the signed payload hash of the PUT example', async () => {
    const example = docs.headerExamples.find((candidate) => candidate.method === 'PUT');
    if (example === undefined) throw new Error('PUT example missing');
    const headers = headersFromLines([
      ...example.headers,
      [
        'Authorization',
        `AWS4-HMAC-SHA256 Credential=${docs.accessKeyId}/20130524/us-east-1/s3/aws4_request,SignedHeaders=${example.signedHeaders ?? ''},Signature=${example.signature}`,
      ],
    ]);
    const result = await verifyTarget(
      { method: 'PUT', rawTarget: example.target, headers, now: DOC_NOW },
      lookup,
      OPTIONS,
    );
    expect(result.ok && result.kind === 'credential' && result.payloadMode).toBe(
      '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
    );
  });

  describe('presigned URL example', () => {
    const example = docs.presignedExample;
    const request = (now: Date): TargetRequest => ({
      method: 'GET',
      rawTarget: example.target,
      headers: headersFromLines(example.headers),
      now,
    });

    it('verifies within its lifetime', async () => {
      const result = await verifyTarget(request(new Date('2013-05-24T12:00:00Z')), lookup, OPTIONS);
      expect(result).toMatchObject({
        ok: true,
        form: 'presigned',
        payloadMode: 'UNSIGNED-PAYLOAD',
        signedHeaders: ['host'],
        expiresAt: new Date('2013-05-25T00:00:00Z'),
      });
    });

    it('is expired one second after its lifetime', async () => {
      expectFailure(
        await verifyTarget(request(new Date('2013-05-25T00:00:01Z')), lookup, OPTIONS),
        'PresignedUrlExpired',
      );
      expect((await verifyTarget(request(new Date('2013-05-25T00:00:00Z')), lookup, OPTIONS)).ok).toBe(true);
    });

    it('answers SignatureDoesNotMatch, not expiry, for an altered expired URL', async () => {
      const altered = {
        ...request(new Date('2013-06-30T00:00:00Z')),
        rawTarget: example.target.replace('/test.txt', '/other.txt'),
      };
      expectFailure(await verifyTarget(altered, lookup, OPTIONS), 'SignatureDoesNotMatch');
    });
  });
});

describe('header-form verification', () => {
  it('accepts a request signed by the AWS SDK signer and reports what it verified', async () => {
    const result = await verifyTarget(
      await signedRequest({ query: { prefix: 'a b', 'list-type': '2' }, headers: { range: 'bytes=0-9' } }),
      lookup,
      OPTIONS,
    );
    expect(result).toMatchObject({
      ok: true,
      accessKeyId: AKID,
      form: 'header',
      payloadMode: EMPTY_SHA256,
      scope: { date: '20250101', region: 'us-east-1', service: 's3' },
      requestTime: NOW,
    });
    expect(result.ok && result.kind === 'credential' && result.signedHeaders).toEqual([
      'host',
      'range',
      'x-amz-content-sha256',
      'x-amz-date',
    ]);
  });

  it('accepts the second allowed region', async () => {
    expect((await verifyTarget(await signedRequest({ region: 'auto' }), lookup, OPTIONS)).ok).toBe(true);
  });

  it('accepts either secret during a rotation grace period', async () => {
    const rotating = lookupOf({ [AKID]: [OLD_SECRET, SECRET] });
    expect((await verifyTarget(await signedRequest({ secret: OLD_SECRET }), rotating, OPTIONS)).ok).toBe(
      true,
    );
    expect((await verifyTarget(await signedRequest({ secret: SECRET }), rotating, OPTIONS)).ok).toBe(true);
    expectFailure(
      await verifyTarget(await signedRequest({ secret: 'a-third-secret' }), rotating, OPTIONS),
      'SignatureDoesNotMatch',
    );
  });

  it('refuses a key with no valid secrets', async () => {
    expectFailure(
      await verifyTarget(await signedRequest(), lookupOf({ [AKID]: [] }), OPTIONS),
      'SignatureDoesNotMatch',
    );
  });

  it('accepts a request whose escapes are spelled differently from the canonical spelling', async () => {
    // Signed as the canonical spelling, sent with lower-case escapes and an escaped tilde.
    const request = await signedRequest({ path: '/bucket/~user/%E2%82%AC' });
    expect(request.rawTarget).toBe('/bucket/~user/%E2%82%AC');
    const respelled = { ...request, rawTarget: '/bucket/%7euser/%e2%82%ac' };
    expect((await verifyTarget(respelled, lookup, OPTIONS)).ok).toBe(true);
  });

  it('accepts a client that signed the escapes exactly as it sent them', async () => {
    // Some signers do not normalise: they sign `%7E` as is.
    const raw = '/bucket/%7Euser';
    expect(canonicalUri(raw)).toBe('/bucket/~user');
    const amzDate = '20250101T120000Z';
    const scope = { date: '20250101', region: 'us-east-1', service: 's3' };
    const headers = { host: HOST, 'x-amz-date': amzDate, 'x-amz-content-sha256': EMPTY_SHA256 };
    const signedHeaders = ['host', 'x-amz-content-sha256', 'x-amz-date'];
    const canonical = buildCanonicalRequest({
      method: 'GET',
      canonicalUri: raw,
      canonicalQuery: '',
      headers,
      signedHeaders,
      payloadHash: EMPTY_SHA256,
    });
    const signature = signStringToSign(
      deriveSigningKey(SECRET, scope),
      stringToSign(amzDate, scope, canonical),
    );
    const request: TargetRequest = {
      method: 'GET',
      rawTarget: raw,
      headers: {
        ...headers,
        authorization: `AWS4-HMAC-SHA256 Credential=${AKID}/20250101/us-east-1/s3/aws4_request, SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`,
      },
      now: NOW,
    };
    expect((await verifyTarget(request, lookup, OPTIONS)).ok).toBe(true);
  });

  it('accepts a request dated by a Date header only', async () => {
    const date = 'Wed, 01 Jan 2025 12:00:00 GMT';
    const scope = { date: '20250101', region: 'us-east-1', service: 's3' };
    const headers = { host: HOST, date, 'x-amz-content-sha256': EMPTY_SHA256 };
    const signedHeaders = ['date', 'host', 'x-amz-content-sha256'];
    const canonical = buildCanonicalRequest({
      method: 'GET',
      canonicalUri: '/bucket/k',
      canonicalQuery: '',
      headers,
      signedHeaders,
      payloadHash: EMPTY_SHA256,
    });
    const signature = signStringToSign(
      deriveSigningKey(SECRET, scope),
      stringToSign('20250101T120000Z', scope, canonical),
    );
    const request: TargetRequest = {
      method: 'GET',
      rawTarget: '/bucket/k',
      headers: {
        ...headers,
        authorization: `AWS4-HMAC-SHA256 Credential=${AKID}/20250101/us-east-1/s3/aws4_request, SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`,
      },
      now: NOW,
    };
    expect((await verifyTarget(request, lookup, OPTIONS)).ok).toBe(true);
  });

  it('refuses a malformed Authorization header with IncompleteSignature', async () => {
    const request = withHeaders(await signedRequest(), { authorization: 'AWS4-HMAC-SHA256 Credential=x' });
    expectFailure(await verifyTarget(request, lookup, OPTIONS), 'IncompleteSignature');
  });

  it('refuses a signature that does not cover host with IncompleteSignature', async () => {
    const request = await signedRequest();
    const authorization = String(request.headers.authorization).replace(
      'SignedHeaders=host;',
      'SignedHeaders=',
    );
    expectFailure(
      await verifyTarget(withHeaders(request, { authorization }), lookup, OPTIONS),
      'IncompleteSignature',
    );
  });

  it('refuses a region outside the allowed list', async () => {
    expectFailure(
      await verifyTarget(await signedRequest({ region: 'eu-west-1' }), lookup, OPTIONS),
      'AuthorizationHeaderMalformedRegion',
    );
  });

  it('refuses a service other than s3', async () => {
    expectFailure(
      await verifyTarget(await signedRequest({ service: 'iam' }), lookup, OPTIONS),
      'AuthorizationHeaderMalformedService',
    );
  });

  it('refuses an unknown access key', async () => {
    expectFailure(
      await verifyTarget(await signedRequest({ accessKeyId: 'GWUNKNOWN' }), lookup, OPTIONS),
      'InvalidAccessKeyId',
    );
  });

  it('refuses a request without x-amz-date or Date', async () => {
    const request = withHeaders(await signedRequest(), { 'x-amz-date': undefined });
    expectFailure(await verifyTarget(request, lookup, OPTIONS), 'MissingDateHeader');
  });

  it.each(['2025-01-01T12:00:00Z', '20250101T120000', '20251301T120000Z', 'yesterday'])(
    'refuses an unparseable x-amz-date (%s) without falling back to Date',
    async (value) => {
      const request = withHeaders(await signedRequest(), {
        'x-amz-date': value,
        date: 'Wed, 01 Jan 2025 12:00:00 GMT',
      });
      expectFailure(await verifyTarget(request, lookup, OPTIONS), 'MissingDateHeader');
    },
  );

  it('refuses a credential scope dated another day than the request', async () => {
    const request = await signedRequest();
    const authorization = String(request.headers.authorization).replace('/20250101/', '/20241231/');
    expectFailure(
      await verifyTarget(withHeaders(request, { authorization }), lookup, OPTIONS),
      'SignatureDoesNotMatch',
    );
  });

  it.each([
    ['behind', -16],
    ['ahead', 16],
  ])('refuses a clock 16 minutes %s with the skew details', async (_label, minutes) => {
    const request = await signedRequest({ signingDate: new Date(NOW.getTime() + minutes * 60_000) });
    const result = await verifyTarget(request, lookup, OPTIONS);
    expect(result).toEqual({
      ok: false,
      error: 'RequestTimeTooSkewed',
      accessKeyId: AKID,
      details: {
        RequestTime: minutes < 0 ? '20250101T114400Z' : '20250101T121600Z',
        ServerTime: '2025-01-01T12:00:00Z',
        MaxAllowedSkewMilliseconds: '900000',
      },
    });
  });

  it('accepts a clock exactly fifteen minutes off either way, and refuses one second more', async () => {
    const FIFTEEN_MINUTES = 15 * 60_000;
    for (const direction of [-1, 1]) {
      const signingDate = new Date(NOW.getTime() + direction * FIFTEEN_MINUTES);
      const request = await signedRequest({ signingDate });
      expect((await verifyTarget(request, lookup, OPTIONS)).ok, `${direction}`).toBe(true);
      // The same request a second later (behind) or earlier (ahead) is over the limit.
      const over = { ...request, now: new Date(NOW.getTime() - direction * 1000) };
      expectFailure(await verifyTarget(over, lookup, OPTIONS), 'RequestTimeTooSkewed');
    }
  });

  it('accepts a clock 14 minutes off', async () => {
    const request = await signedRequest({ signingDate: new Date(NOW.getTime() - 14 * 60_000) });
    expect((await verifyTarget(request, lookup, OPTIONS)).ok).toBe(true);
  });

  it('honours a configured skew allowance', async () => {
    const request = await signedRequest({ signingDate: new Date(NOW.getTime() - 2 * 60_000) });
    expectFailure(
      await verifyTarget(request, lookup, { ...OPTIONS, maxSkewSeconds: 60 }),
      'RequestTimeTooSkewed',
    );
  });

  it('requires x-amz-content-sha256', async () => {
    const signed = await signWithSmithy({
      method: 'GET',
      host: HOST,
      path: '/bucket/k',
      accessKeyId: AKID,
      secret: SECRET,
      signingDate: NOW,
    });
    expect(signed.headers['x-amz-content-sha256']).toBeUndefined();
    const request = { method: 'GET', rawTarget: signed.rawTarget, headers: signed.headers, now: NOW };
    expectFailure(await verifyTarget(request, lookup, OPTIONS), 'MissingContentSha256');
  });

  it.each(['abc', 'UNSIGNED_PAYLOAD', 'g'.repeat(64), 'STREAMING-UNSIGNED-PAYLOAD'])(
    'refuses x-amz-content-sha256 %s',
    async (value) => {
      const request = await signedRequest({ headers: { 'x-amz-content-sha256': value } });
      expectFailure(await verifyTarget(request, lookup, OPTIONS), 'InvalidContentSha256');
    },
  );

  it.each(['UNSIGNED-PAYLOAD', 'STREAMING-UNSIGNED-PAYLOAD-TRAILER', 'ab'.repeat(32)])(
    'accepts x-amz-content-sha256 %s and returns it',
    async (value) => {
      const request = await signedRequest({ method: 'PUT', headers: { 'x-amz-content-sha256': value } });
      const result = await verifyTarget(request, lookup, OPTIONS);
      expect(result.ok && result.kind === 'credential' && result.payloadMode).toBe(value);
    },
  );

  it.each(['STREAMING-AWS4-HMAC-SHA256-PAYLOAD', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER'])(
    'answers %s with SignedStreamingNotImplemented once the signature is good',
    async (mode) => {
      const good = await signedRequest({ method: 'PUT', headers: { 'x-amz-content-sha256': mode } });
      expectFailure(await verifyTarget(good, lookup, OPTIONS), 'SignedStreamingNotImplemented');
      const forged = await signedRequest({
        method: 'PUT',
        headers: { 'x-amz-content-sha256': mode },
        secret: 'wrong',
      });
      expectFailure(await verifyTarget(forged, lookup, OPTIONS), 'SignatureDoesNotMatch');
    },
  );

  describe('signature mismatches', () => {
    it('refuses the wrong secret', async () => {
      expectFailure(
        await verifyTarget(await signedRequest({ secret: 'not-the-secret' }), lookup, OPTIONS),
        'SignatureDoesNotMatch',
      );
    });

    it('refuses a changed signed header', async () => {
      const request = await signedRequest({ headers: { range: 'bytes=0-9' } });
      expectFailure(
        await verifyTarget(withHeaders(request, { range: 'bytes=0-99' }), lookup, OPTIONS),
        'SignatureDoesNotMatch',
      );
    });

    it('refuses a changed Host (a proxy rewrote it)', async () => {
      const request = withHeaders(await signedRequest(), { host: 'internal-backend:7480' });
      expectFailure(await verifyTarget(request, lookup, OPTIONS), 'SignatureDoesNotMatch');
    });

    it('refuses a changed path, query or method', async () => {
      const request = await signedRequest({ query: { prefix: 'a' } });
      expectFailure(
        await verifyTarget(
          { ...request, rawTarget: request.rawTarget.replace('/key.txt', '/other.txt') },
          lookup,
          OPTIONS,
        ),
        'SignatureDoesNotMatch',
      );
      expectFailure(
        await verifyTarget(
          { ...request, rawTarget: request.rawTarget.replace('prefix=a', 'prefix=b') },
          lookup,
          OPTIONS,
        ),
        'SignatureDoesNotMatch',
      );
      expectFailure(
        await verifyTarget({ ...request, rawTarget: `${request.rawTarget}&acl` }, lookup, OPTIONS),
        'SignatureDoesNotMatch',
      );
      expectFailure(
        await verifyTarget({ ...request, method: 'DELETE' }, lookup, OPTIONS),
        'SignatureDoesNotMatch',
      );
    });

    it('refuses a normalised path: dot segments are signed as sent', async () => {
      const request = await signedRequest({ path: '/bucket/a/../key.txt' });
      expect((await verifyTarget(request, lookup, OPTIONS)).ok).toBe(true);
      expectFailure(
        await verifyTarget({ ...request, rawTarget: '/bucket/key.txt' }, lookup, OPTIONS),
        'SignatureDoesNotMatch',
      );
    });

    it('refuses a changed x-amz-content-sha256 even when unsigned as a header', async () => {
      const request = await signedRequest({
        method: 'PUT',
        headers: { 'x-amz-content-sha256': 'ab'.repeat(32) },
      });
      const authorization = String(request.headers.authorization).replace(';x-amz-content-sha256', '');
      // The header is no longer listed as signed, but the payload hash is still part of the canonical request.
      const changed = withHeaders(request, { authorization, 'x-amz-content-sha256': 'cd'.repeat(32) });
      expectFailure(await verifyTarget(changed, lookup, OPTIONS), 'SignatureDoesNotMatch');
    });
  });

  describe('check order', () => {
    it('checks region and service before looking the key up', async () => {
      const counting = lookupOf({});
      expectFailure(
        await verifyTarget(await signedRequest({ region: 'xx-1' }), counting, OPTIONS),
        'AuthorizationHeaderMalformedRegion',
      );
      expectFailure(
        await verifyTarget(await signedRequest({ service: 'sts' }), counting, OPTIONS),
        'AuthorizationHeaderMalformedService',
      );
      expect(counting.calls).toEqual([]);
    });

    it('reports an unknown key before a missing date', async () => {
      const request = withHeaders(await signedRequest({ accessKeyId: 'GWUNKNOWN' }), {
        'x-amz-date': undefined,
      });
      expectFailure(await verifyTarget(request, lookup, OPTIONS), 'InvalidAccessKeyId');
    });

    it('reports skew before the content hash and the signature', async () => {
      const request = await signedRequest({
        signingDate: new Date(NOW.getTime() - 60 * 60_000),
        secret: 'wrong',
        headers: { 'x-amz-content-sha256': 'nonsense' },
      });
      expectFailure(await verifyTarget(request, lookup, OPTIONS), 'RequestTimeTooSkewed');
    });

    it('reports the content hash before the signature', async () => {
      const request = await signedRequest({
        secret: 'wrong',
        headers: { 'x-amz-content-sha256': 'nonsense' },
      });
      expectFailure(await verifyTarget(request, lookup, OPTIONS), 'InvalidContentSha256');
    });
  });

  it('refuses a request carrying both a header and a presigned signature', async () => {
    const presigned = await presignedRequest();
    const header = await signedRequest();
    const both = {
      ...presigned,
      headers: { ...presigned.headers, authorization: String(header.headers.authorization) },
    };
    expectFailure(await verifyTarget(both, lookup, OPTIONS), 'IncompleteSignature');
  });

  it('reports a request without any signature as anonymous, looking nothing up', async () => {
    const counting = lookupOf({ [AKID]: [SECRET] });
    const result = await verifyTarget(
      { method: 'GET', rawTarget: '/bucket/k', headers: { host: HOST }, now: NOW },
      counting,
      OPTIONS,
    );
    expect(result).toMatchObject({ ok: true, kind: 'anonymous' });
    expect(counting.calls).toEqual([]);
  });
});

describe('presigned verification', () => {
  it('accepts a URL presigned by the AWS SDK signer', async () => {
    const result = await verifyTarget(
      await presignedRequest({ query: { 'response-content-type': 'text/plain; charset=utf-8' } }),
      lookup,
      OPTIONS,
    );
    expect(result).toMatchObject({
      ok: true,
      form: 'presigned',
      payloadMode: 'UNSIGNED-PAYLOAD',
      accessKeyId: AKID,
      expiresAt: new Date(NOW.getTime() + 3600_000),
    });
  });

  it('accepts a URL dated days ago that is still within its lifetime', async () => {
    const request = await presignedRequest({
      signingDate: new Date(NOW.getTime() - 3 * 86_400_000),
      expiresIn: 604_800,
    });
    expect((await verifyTarget(request, lookup, OPTIONS)).ok).toBe(true);
  });

  it('works up to the instant its lifetime ends, and not a millisecond after', async () => {
    const signingDate = new Date(NOW.getTime() - 604_800_000);
    const atTheEnd = await presignedRequest({ signingDate, expiresIn: 604_800 });
    expect(await verifyTarget(atTheEnd, lookup, OPTIONS)).toMatchObject({ ok: true, expiresAt: NOW });
    const after = await presignedRequest({
      signingDate,
      expiresIn: 604_800,
      now: new Date(NOW.getTime() + 1),
    });
    expectFailure(await verifyTarget(after, lookup, OPTIONS), 'PresignedUrlExpired');
  });

  it('refuses an expired URL with PresignedUrlExpired', async () => {
    const request = await presignedRequest({
      signingDate: new Date(NOW.getTime() - 3601_000),
      expiresIn: 3600,
    });
    expectFailure(await verifyTarget(request, lookup, OPTIONS), 'PresignedUrlExpired');
  });

  it('refuses a forged expired URL with SignatureDoesNotMatch (no probing of expiry)', async () => {
    const request = await presignedRequest({
      signingDate: new Date(NOW.getTime() - 3601_000),
      expiresIn: 3600,
      secret: 'forged',
    });
    expectFailure(await verifyTarget(request, lookup, OPTIONS), 'SignatureDoesNotMatch');
  });

  it('refuses a lifetime over 7 days before looking at the signature', async () => {
    const request = await presignedRequest({ expiresIn: 3600 });
    const tooLong = {
      ...request,
      rawTarget: request.rawTarget.replace('X-Amz-Expires=3600', 'X-Amz-Expires=604801'),
    };
    expectFailure(await verifyTarget(tooLong, lookup, OPTIONS), 'PresignedLifetimeTooLong');
    const counting = lookupOf({});
    expectFailure(await verifyTarget(tooLong, counting, OPTIONS), 'PresignedLifetimeTooLong');
    expect(counting.calls).toEqual([]);
  });

  it('accepts exactly 7 days', async () => {
    expect((await verifyTarget(await presignedRequest({ expiresIn: 604_800 }), lookup, OPTIONS)).ok).toBe(
      true,
    );
  });

  it('refuses a URL missing a required parameter', async () => {
    const request = await presignedRequest();
    const stripped = { ...request, rawTarget: request.rawTarget.replace(/&?X-Amz-SignedHeaders=[^&]*/, '') };
    expectFailure(await verifyTarget(stripped, lookup, OPTIONS), 'AuthorizationQueryParametersMalformed');
  });

  it('refuses a region outside the allowed list', async () => {
    expectFailure(
      await verifyTarget(await presignedRequest({ region: 'eu-west-1' }), lookup, OPTIONS),
      'AuthorizationQueryParametersRegion',
    );
  });

  it('refuses a service other than s3', async () => {
    expectFailure(
      await verifyTarget(await presignedRequest({ service: 'iam' }), lookup, OPTIONS),
      'AuthorizationQueryParametersService',
    );
  });

  it('refuses an unknown access key', async () => {
    expectFailure(
      await verifyTarget(await presignedRequest({ accessKeyId: 'GWUNKNOWN' }), lookup, OPTIONS),
      'InvalidAccessKeyId',
    );
  });

  it('refuses a URL dated more than 15 minutes in the future', async () => {
    const request = await presignedRequest({ signingDate: new Date(NOW.getTime() + 16 * 60_000) });
    const result = await verifyTarget(request, lookup, OPTIONS);
    expectFailure(result, 'RequestTimeTooSkewed');
    expect(!result.ok && result.details?.RequestTime).toBe('20250101T121600Z');
    const nearFuture = await presignedRequest({ signingDate: new Date(NOW.getTime() + 14 * 60_000) });
    expect((await verifyTarget(nearFuture, lookup, OPTIONS)).ok).toBe(true);
  });

  it('refuses a malformed X-Amz-Date', async () => {
    const request = await presignedRequest();
    const broken = {
      ...request,
      rawTarget: request.rawTarget.replace('X-Amz-Date=20250101T120000Z', 'X-Amz-Date=2025-01-01'),
    };
    expectFailure(await verifyTarget(broken, lookup, OPTIONS), 'AuthorizationQueryParametersMalformed');
  });

  it('refuses a URL whose signed parameters were changed', async () => {
    const request = await presignedRequest({ query: { 'response-content-disposition': 'inline' } });
    const changed = { ...request, rawTarget: request.rawTarget.replace('inline', 'attachment') };
    expectFailure(await verifyTarget(changed, lookup, OPTIONS), 'SignatureDoesNotMatch');
    const method = { ...request, method: 'PUT' };
    expectFailure(await verifyTarget(method, lookup, OPTIONS), 'SignatureDoesNotMatch');
  });

  it('refuses a URL without host in X-Amz-SignedHeaders', async () => {
    const request = await presignedRequest();
    const noHost = {
      ...request,
      rawTarget: request.rawTarget.replace('X-Amz-SignedHeaders=host', 'X-Amz-SignedHeaders=range'),
    };
    expectFailure(await verifyTarget(noHost, lookup, OPTIONS), 'IncompleteSignature');
  });
});

describe('SigV4Verifier', () => {
  it('returns the record its lookup found, so callers need not look it up again', async () => {
    const record = { secrets: [SECRET], name: 'the record' };
    const verifier = verifierOf(async (id) => (id === AKID ? record : null), OPTIONS);
    const result = await verifier.authenticate(verifyRequestOf(await signedRequest()));
    expect(result.ok && result.kind === 'credential' && result.credential).toBe(record);
  });

  it('keeps verifying with the signing keys it derived, and refuses a wrong secret', async () => {
    const verifier = verifierOf(lookup, OPTIONS);
    expect((await verifier.authenticate(verifyRequestOf(await signedRequest()))).ok).toBe(true);
    const another = verifyRequestOf(await signedRequest({ query: { a: '1' } }));
    expect((await verifier.authenticate(another)).ok).toBe(true);
    expectFailure(
      await verifier.authenticate(verifyRequestOf(await signedRequest({ secret: 'wrong' }))),
      'SignatureDoesNotMatch',
    );
  });

  it('plans the body of an upload from the signed payload mode, and none for a GET', async () => {
    const put = await signedRequest({
      method: 'PUT',
      headers: {
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
        'content-length': '5',
        'content-md5': 'XUFAKrxLKna5cZ2REBfFkg==',
      },
    });
    expect(await verifyTarget(put, lookup, OPTIONS)).toMatchObject({
      ok: true,
      bodyPlan: { ok: true, verified: true, decodedLength: 5, contentMd5: 'XUFAKrxLKna5cZ2REBfFkg==' },
    });
    expect(await verifyTarget(await signedRequest(), lookup, OPTIONS)).toMatchObject({
      ok: true,
      bodyPlan: { ok: true, verified: false },
    });
  });
});
