import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { headerValue, type HeaderMap } from '../../../src/protocol/headers.js';
import { openBody, planBody, type BodyPlan, type BodyPlanResult } from '../../../src/sigv4/body-plan.js';
import { checksumHeaderName, digestOf, type ChecksumAlgorithm } from '../../../src/sigv4/checksums.js';
import { awsChunkedBody } from '../../support/aws-chunked.js';
import { randomSplits, runThrough, testData } from './helpers.js';

const DATA = testData(40_000, 5);
const ALGORITHMS: readonly ChecksumAlgorithm[] = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'];

function streamingHeaders(algorithm: ChecksumAlgorithm, extra: Record<string, string> = {}): HeaderMap {
  return {
    'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    'content-encoding': 'aws-chunked',
    'x-amz-decoded-content-length': String(DATA.length),
    'x-amz-trailer': checksumHeaderName(algorithm),
    'x-amz-sdk-checksum-algorithm': algorithm,
    ...extra,
  };
}

/** The plan for headers, signed with `payloadHash` (the request's x-amz-content-sha256 unless given). */
function planResult(headers: HeaderMap, payloadHash?: string): BodyPlanResult {
  return planBody(headers, payloadHash ?? headerValue(headers, 'x-amz-content-sha256') ?? 'UNSIGNED-PAYLOAD');
}

function planOf(headers: HeaderMap, payloadHash?: string): BodyPlan {
  const plan = planResult(headers, payloadHash);
  if (!plan.ok) throw new Error(`unexpected refusal ${plan.error}`);
  return plan;
}

function streamOf(headers: HeaderMap, payloadHash?: string) {
  return openBody(planOf(headers, payloadHash)).stream;
}

describe('planBody: up-front refusals', () => {
  it.each<[string, HeaderMap, string]>([
    [
      'a trailer together with a checksum header',
      { ...streamingHeaders('CRC32'), 'x-amz-checksum-crc32': 'AAAAAA==' },
      'MultipleChecksums',
    ],
    [
      'two checksum headers',
      { 'x-amz-checksum-crc32': 'AAAAAA==', 'x-amz-checksum-sha1': '2jmj7l5rSw0yVb/vlWAYkK/YBwk=' },
      'MultipleChecksums',
    ],
    [
      'an unknown checksum header',
      { 'x-amz-checksum-xxhash64': 'AAAAAAAAAAA=' },
      'UnsupportedChecksumAlgorithm',
    ],
    [
      'an unknown trailer',
      {
        ...streamingHeaders('CRC32'),
        'x-amz-trailer': 'x-amz-checksum-sha512',
        'x-amz-sdk-checksum-algorithm': 'CRC32',
      },
      'UnsupportedChecksumAlgorithm',
    ],
    [
      'an unknown x-amz-checksum-algorithm',
      { 'x-amz-checksum-algorithm': 'XXHASH3' },
      'UnsupportedChecksumAlgorithm',
    ],
    [
      'an unknown x-amz-sdk-checksum-algorithm',
      { 'x-amz-sdk-checksum-algorithm': 'MD5' },
      'UnsupportedChecksumAlgorithm',
    ],
    ['a checksum header of the wrong length', { 'x-amz-checksum-crc32': 'AAAAAAAAAAA=' }, 'InvalidDigest'],
    ['a Content-MD5 that is not an MD5', { 'content-md5': 'AAAAAA==' }, 'InvalidDigest'],
    [
      'aws-chunked without x-amz-decoded-content-length',
      { 'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER', 'content-encoding': 'aws-chunked' },
      'MissingContentLength',
    ],
    [
      'a non-numeric x-amz-decoded-content-length',
      { ...streamingHeaders('CRC32'), 'x-amz-decoded-content-length': '12abc' },
      'MissingContentLength',
    ],
    [
      'aws-chunked framing under a hex payload hash',
      {
        'x-amz-content-sha256': 'ab'.repeat(32),
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': '1',
      },
      'InvalidChunkedEncoding',
    ],
    [
      'a trailer on a body that is not aws-chunked',
      {
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
        'x-amz-trailer': 'x-amz-checksum-crc32',
        'content-length': '3',
      },
      'MissingTrailer',
    ],
  ])('refuses %s', (_label, headers, error) => {
    expect(planResult(headers)).toEqual({ ok: false, error });
  });
});

describe('planBody: plans', () => {
  it('forwards an unsigned body without checksums untouched', () => {
    const plan = planOf({ 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-length': '10' });
    expect(plan.verified).toBe(false);
    expect(openBody(plan).stream).toBeNull();
    expect(plan.decodedLength).toBe(10);
    expect(plan.forwardHeaders).toEqual({ remove: [], set: {} });
  });

  it('rewrites the headers of an aws-chunked upload for the backend', () => {
    const plan = planOf(
      streamingHeaders('CRC32', { 'content-encoding': 'aws-chunked', 'transfer-encoding': 'chunked' }),
    );
    expect(plan.decodedLength).toBe(DATA.length);
    expect(plan.checksum).toEqual({
      algorithm: 'CRC32',
      source: 'trailer',
      trailerName: 'x-amz-checksum-crc32',
    });
    expect(plan.forwardHeaders.set).toEqual({});
    expect([...plan.forwardHeaders.remove].sort()).toEqual([
      'content-encoding',
      'x-amz-sdk-checksum-algorithm',
    ]);
  });

  it('keeps other content codings and drops only aws-chunked', () => {
    const plan = planOf(streamingHeaders('CRC32', { 'content-encoding': 'aws-chunked, gzip' }));
    expect(plan.forwardHeaders.set['content-encoding']).toBe('gzip');
    expect(plan.forwardHeaders.remove).not.toContain('content-encoding');
    const other = planOf(streamingHeaders('CRC32', { 'content-encoding': 'gzip,AWS-CHUNKED,br' }));
    expect(other.forwardHeaders.set['content-encoding']).toBe('gzip,br');
  });

  it('decodes STREAMING-UNSIGNED-PAYLOAD-TRAILER even without Content-Encoding', () => {
    const headers: Record<string, string> = { ...streamingHeaders('CRC32') } as Record<string, string>;
    delete headers['content-encoding'];
    const plan = planOf(headers);
    expect(plan.chunked).toBeDefined();
    expect(plan.forwardHeaders.remove).toContain('content-encoding');
  });

  it('verifies an empty body too (it must be checked before anything is forwarded)', () => {
    const empty = createHash('sha256').digest('hex');
    expect(planOf({ 'x-amz-content-sha256': empty, 'content-length': '0' })).toMatchObject({
      verified: true,
      decodedLength: 0,
    });
    expect(planOf({ ...streamingHeaders('CRC32'), 'x-amz-decoded-content-length': '0' })).toMatchObject({
      verified: true,
      decodedLength: 0,
    });
  });

  it('uses the verified payload hash over the header', () => {
    const plan = planOf(
      { 'x-amz-content-sha256': 'ab'.repeat(32), 'content-length': '1' },
      'UNSIGNED-PAYLOAD',
    );
    expect(plan.verified).toBe(false);
  });
});

describe('body pipeline end to end', () => {
  for (const algorithm of ALGORITHMS) {
    describe(`aws-chunked with a ${algorithm} trailer`, () => {
      it('delivers the decoded body when the trailer is right', async () => {
        const value = await digestOf(algorithm, DATA);
        const body = awsChunkedBody(DATA, 8192, [[checksumHeaderName(algorithm), value]]);
        const verification = openBody(planOf(streamingHeaders(algorithm)));
        const outcome = await runThrough(verification.stream, randomSplits(body, 99, 5000));
        expect(outcome.errorKey).toBeUndefined();
        expect(outcome.output.equals(DATA)).toBe(true);
        expect(verification.verifiedChecksum).toEqual({ algorithm, base64: value });
      });

      it('never delivers the last bytes when the trailer is wrong (BadDigest)', async () => {
        const wrong = await digestOf(algorithm, Buffer.from('not the body'));
        const body = awsChunkedBody(DATA, 8192, [[checksumHeaderName(algorithm), wrong]]);
        const outcome = await runThrough(streamOf(streamingHeaders(algorithm)), [body]);
        expect(outcome.errorKey).toBe('BadDigest');
        expect(outcome.output.length).toBeLessThan(DATA.length);
        expect(outcome.output.equals(DATA.subarray(0, outcome.output.length))).toBe(true);
      });
    });
  }

  it('refuses a truncated aws-chunked body with IncompleteBody, holding back its tail', async () => {
    const body = awsChunkedBody(DATA, 8192, [['x-amz-checksum-crc32', await digestOf('CRC32', DATA)]]);
    const outcome = await runThrough(streamOf(streamingHeaders('CRC32')), [
      body.subarray(0, body.length - 200),
    ]);
    expect(outcome.errorKey).toBe('IncompleteBody');
    expect(outcome.output.length).toBeLessThan(DATA.length);
  });

  it('refuses a body whose trailer never came with MissingTrailer', async () => {
    const outcome = await runThrough(streamOf(streamingHeaders('SHA256')), [awsChunkedBody(DATA, 8192, [])]);
    expect(outcome.errorKey).toBe('MissingTrailer');
    expect(outcome.output.length).toBeLessThan(DATA.length);
  });

  it('refuses garbage framing with InvalidChunkedEncoding', async () => {
    const outcome = await runThrough(streamOf(streamingHeaders('CRC32')), [
      Buffer.from('this is not aws-chunked\r\n'),
    ]);
    expect(outcome.errorKey).toBe('InvalidChunkedEncoding');
    expect(outcome.output.length).toBe(0);
  });

  it('holds back the tail even without a trailer, until the framing is complete', async () => {
    const headers = {
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      'content-encoding': 'aws-chunked',
      'x-amz-decoded-content-length': String(DATA.length),
    };
    const body = awsChunkedBody(DATA, 8192);
    // Every data byte arrived, but the closing zero chunk did not.
    const cut = body.subarray(0, body.lastIndexOf('0\r\n'));
    const outcome = await runThrough(streamOf(headers), [cut]);
    expect(outcome.errorKey).toBe('IncompleteBody');
    expect(outcome.output.length).toBeLessThan(DATA.length);
    expect((await runThrough(streamOf(headers), [body])).output.equals(DATA)).toBe(true);
  });

  it('verifies a signed payload hash, a checksum header and Content-MD5 together', async () => {
    const headers = {
      'x-amz-content-sha256': createHash('sha256').update(DATA).digest('hex'),
      'content-length': String(DATA.length),
      'x-amz-checksum-crc32c': await digestOf('CRC32C', DATA),
      'content-md5': createHash('md5').update(DATA).digest('base64'),
    };
    expect(planOf(headers).checksum).toMatchObject({ algorithm: 'CRC32C', source: 'header' });
    expect((await runThrough(streamOf(headers), randomSplits(DATA, 5, 3000))).output.equals(DATA)).toBe(true);

    const tampered = Buffer.from(DATA);
    tampered[100] = (tampered[100] ?? 0) ^ 1;
    expect((await runThrough(streamOf(headers), [tampered])).errorKey).toBe('XAmzContentSHA256Mismatch');
  });

  it('refuses a wrong Content-MD5 with BadDigest', async () => {
    const headers = {
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      'content-length': String(DATA.length),
      'content-md5': createHash('md5').update('other').digest('base64'),
    };
    expect((await runThrough(streamOf(headers), [DATA])).errorKey).toBe('BadDigest');
  });

  it('refuses a wrong checksum header with BadDigest', async () => {
    const headers = {
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      'content-length': String(DATA.length),
      'x-amz-checksum-crc64nvme': await digestOf('CRC64NVME', Buffer.from('other')),
    };
    const outcome = await runThrough(streamOf(headers), [DATA.subarray(0, 20_000), DATA.subarray(20_000)]);
    expect(outcome.errorKey).toBe('BadDigest');
    expect(outcome.output.equals(DATA.subarray(0, 20_000))).toBe(true);
  });
});
