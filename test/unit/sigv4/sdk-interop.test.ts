/**
 * Requests produced by the real AWS SDK for JavaScript v3 (client-s3 and the presigner),
 * sent over real HTTP to a local capturing server, then verified from exactly what arrived.
 */

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

import {
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type ChecksumAlgorithm,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openBody, planBody } from '../../../src/sigv4/body-plan.js';
import { runThrough } from './helpers.js';
import { verifyTarget, type SecretLookup } from '../../support/sigv4.js';

interface CapturedRequest {
  method: string;
  url: string;
  headers: Record<string, string[]>;
  body: Buffer;
  receivedAt: Date;
}

const ACCESS_KEY_ID = 'GWINTEROP000000000001';
const SECRET = 'interop/Secret+Key=WithSymbols0123456789';
const lookup: SecretLookup = async (accessKeyId) =>
  accessKeyId === ACCESS_KEY_ID ? { secrets: [SECRET] } : null;
const OPTIONS = { allowedRegions: ['us-east-1'] };

let server: Server;
let endpoint: string;
const captured: CapturedRequest[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      captured.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headersDistinct as Record<string, string[]>,
        body: Buffer.concat(chunks),
        receivedAt: new Date(),
      });
      const isList = (req.url ?? '').includes('list-type=2');
      const isUploads = (req.url ?? '').includes('uploads');
      const isCopy = req.headers['x-amz-copy-source'] !== undefined;
      res.writeHead(200, { 'content-type': 'application/xml', etag: '"0123456789abcdef0123456789abcdef"' });
      if (isList)
        res.end('<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name></ListBucketResult>');
      else if (isUploads)
        res.end(
          '<?xml version="1.0"?><InitiateMultipartUploadResult><UploadId>u1</UploadId></InitiateMultipartUploadResult>',
        );
      else if (isCopy) res.end('<?xml version="1.0"?><CopyObjectResult><ETag>"x"</ETag></CopyObjectResult>');
      else if (req.method === 'POST') res.end('<?xml version="1.0"?><DeleteResult></DeleteResult>');
      else res.end(req.method === 'GET' ? 'body' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(): S3Client {
  return new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET },
    maxAttempts: 1,
  });
}

/** Sends one SDK command and returns what the server received for it. */
async function capture(send: (s3: S3Client) => Promise<unknown>): Promise<CapturedRequest> {
  const before = captured.length;
  const s3 = client();
  try {
    await send(s3);
  } catch {
    // The fake server's answers are minimal; only the request matters here.
  } finally {
    s3.destroy();
  }
  const request = captured[before];
  if (request === undefined) throw new Error('the SDK sent no request');
  return request;
}

async function verifyCaptured(request: CapturedRequest) {
  return verifyTarget(
    { method: request.method, rawTarget: request.url, headers: request.headers, now: request.receivedAt },
    lookup,
    OPTIONS,
  );
}

const TRICKY_KEYS = [
  'plain.txt',
  'with space/and more spaces.txt',
  'plus+sign+key',
  'percent%25literal%',
  'tilde~key',
  'equals=and&ampersand',
  "specials !*'()$,;:@[]",
  'unicode/é/日本語/😀.bin',
  'dir//double//slash/',
  'question?mark#hash',
  'dots/../not-normalised/./x',
  'control\tchars',
];

describe('AWS SDK client-s3 requests verify', () => {
  for (const key of TRICKY_KEYS) {
    it(`PutObject and GetObject of ${JSON.stringify(key)}`, async () => {
      const put = await capture((s3) =>
        s3.send(new PutObjectCommand({ Bucket: 'bucket', Key: key, Body: 'data' })),
      );
      expect(await verifyCaptured(put)).toMatchObject({
        ok: true,
        accessKeyId: ACCESS_KEY_ID,
        form: 'header',
      });
      const get = await capture((s3) =>
        s3.send(new GetObjectCommand({ Bucket: 'bucket', Key: key, Range: 'bytes=0-1' })),
      );
      expect(await verifyCaptured(get)).toMatchObject({ ok: true });
      // And the check is real: the same request for another key does not verify.
      const moved = { ...get, url: get.url.replace('/bucket/', '/bucket/x') };
      expect(await verifyCaptured(moved)).toMatchObject({ ok: false, error: 'SignatureDoesNotMatch' });
    });
  }

  it('ListObjectsV2 with a prefix full of reserved characters', async () => {
    const list = await capture((s3) =>
      s3.send(
        new ListObjectsV2Command({
          Bucket: 'bucket',
          Prefix: 'a b+c/%~=&é',
          Delimiter: '/',
          StartAfter: 'x y',
        }),
      ),
    );
    expect(list.url).toContain('list-type=2');
    expect(await verifyCaptured(list)).toMatchObject({ ok: true });
  });

  it('bucket and object subresources (?delete, ?uploads, partNumber/uploadId)', async () => {
    const deleteObjects = await capture((s3) =>
      s3.send(
        new DeleteObjectsCommand({ Bucket: 'bucket', Delete: { Objects: [{ Key: 'a' }, { Key: 'b c' }] } }),
      ),
    );
    expect(deleteObjects.url).toMatch(/\?delete/);
    expect(await verifyCaptured(deleteObjects)).toMatchObject({ ok: true });

    const create = await capture((s3) =>
      s3.send(new CreateMultipartUploadCommand({ Bucket: 'bucket', Key: 'big file' })),
    );
    expect(create.url).toMatch(/\?uploads/);
    expect(await verifyCaptured(create)).toMatchObject({ ok: true });

    const part = await capture((s3) =>
      s3.send(
        new UploadPartCommand({
          Bucket: 'bucket',
          Key: 'big file',
          UploadId: 'id/with+chars',
          PartNumber: 2,
          Body: 'x',
        }),
      ),
    );
    expect(await verifyCaptured(part)).toMatchObject({ ok: true });
  });

  it('CopyObject with an encoded copy source, and HeadObject', async () => {
    const copy = await capture((s3) =>
      s3.send(
        new CopyObjectCommand({ Bucket: 'bucket', Key: 'dest key', CopySource: 'bucket/src%20key%2B1' }),
      ),
    );
    expect(await verifyCaptured(copy)).toMatchObject({ ok: true });
    const head = await capture((s3) => s3.send(new HeadObjectCommand({ Bucket: 'bucket', Key: 'é' })));
    expect(await verifyCaptured(head)).toMatchObject({ ok: true });
  });

  it('refuses a captured SDK request whose signed header was changed in transit', async () => {
    const put = await capture((s3) =>
      s3.send(new PutObjectCommand({ Bucket: 'bucket', Key: 'k', Body: 'data', ContentType: 'text/plain' })),
    );
    const changed = { ...put, headers: { ...put.headers, 'content-type': ['text/html'] } };
    expect(await verifyCaptured(changed)).toMatchObject({ ok: false, error: 'SignatureDoesNotMatch' });
  });
});

const SDK_ALGORITHMS: readonly ChecksumAlgorithm[] = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'];

describe('AWS SDK upload bodies pass the body pipeline', () => {
  const payload = Buffer.from('The quick brown fox jumps over the lazy dog. '.repeat(200));

  for (const algorithm of SDK_ALGORITHMS) {
    it(`buffered PutObject with a ${algorithm} checksum header`, async () => {
      const put = await capture((s3) =>
        s3.send(new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: payload, ChecksumAlgorithm: algorithm })),
      );
      const verified = await verifyCaptured(put);
      if (!verified.ok || verified.kind !== 'credential') throw new Error('not verified');
      const plan = verified.bodyPlan;
      if (!plan.ok) throw new Error(`plan refused: ${plan.error}`);
      expect(plan.checksum).toMatchObject({ algorithm, source: 'header' });
      const outcome = await runThrough(openBody(plan).stream, [put.body]);
      expect(outcome.errorKey).toBeUndefined();
      expect(outcome.output.equals(payload)).toBe(true);
    });

    it(`streamed PutObject (aws-chunked, ${algorithm} trailer)`, async () => {
      const put = await capture((s3) =>
        s3.send(
          new PutObjectCommand({
            Bucket: 'b',
            Key: 'streamed key',
            Body: Readable.from([payload.subarray(0, 1000), payload.subarray(1000)]),
            ContentLength: payload.length,
            ChecksumAlgorithm: algorithm,
          }),
        ),
      );
      expect(put.headers['x-amz-content-sha256']).toEqual(['STREAMING-UNSIGNED-PAYLOAD-TRAILER']);
      const verified = await verifyCaptured(put);
      expect(verified).toMatchObject({ ok: true, payloadMode: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER' });
      if (!verified.ok || verified.kind !== 'credential') throw new Error('not verified');
      const plan = verified.bodyPlan;
      if (!plan.ok) throw new Error(`plan refused: ${plan.error}`);
      expect(plan.decodedLength).toBe(payload.length);
      expect(plan.checksum).toMatchObject({ algorithm, source: 'trailer' });
      const verification = openBody(plan);
      const outcome = await runThrough(verification.stream, [put.body]);
      expect(outcome.errorKey).toBeUndefined();
      expect(outcome.output.equals(payload)).toBe(true);
      expect(verification.verifiedChecksum?.algorithm).toBe(algorithm);

      // The same body with one data byte flipped is refused with BadDigest.
      const corrupt = Buffer.from(put.body);
      const dataStart = corrupt.indexOf('\r\n') + 2;
      corrupt[dataStart] = (corrupt[dataStart] ?? 0) ^ 0x01;
      const replan = planBody(put.headers, 'STREAMING-UNSIGNED-PAYLOAD-TRAILER');
      if (!replan.ok) throw new Error('plan refused');
      expect((await runThrough(openBody(replan).stream, [corrupt])).errorKey).toBe('BadDigest');
    });
  }
});

function headersOfFetch(headers: IncomingHttpHeaders): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) result[name] = Array.isArray(value) ? value : [value];
  }
  return result;
}

/** Sends a presigned URL with fetch (WHATWG URL handling, as a browser) and returns what arrived. */
async function fetchCaptured(method: 'GET' | 'PUT', url: string) {
  const before = captured.length;
  await fetch(url, { method, ...(method === 'PUT' ? { body: '' } : {}) });
  const arrived = captured[before];
  if (arrived === undefined) throw new Error('nothing arrived');
  return {
    method: arrived.method,
    rawTarget: arrived.url,
    headers: headersOfFetch(arrived.headers),
    now: arrived.receivedAt,
  };
}

describe('AWS SDK presigned URLs verify', () => {
  // A URL parser removes dot segments before sending, so those keys get their own test below.
  for (const key of TRICKY_KEYS.filter((candidate) => !candidate.includes('/../'))) {
    it(`GET and PUT URLs for ${JSON.stringify(key)}`, async () => {
      const s3 = client();
      const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'bucket', Key: key }), {
        expiresIn: 900,
      });
      const putUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket: 'bucket', Key: key }), {
        expiresIn: 900,
      });
      s3.destroy();

      for (const [method, url] of [
        ['GET', getUrl],
        ['PUT', putUrl],
      ] as const) {
        const request = await fetchCaptured(method, url);
        expect(await verifyTarget(request, lookup, OPTIONS)).toMatchObject({
          ok: true,
          form: 'presigned',
          payloadMode: 'UNSIGNED-PAYLOAD',
        });
        const later = new Date(request.now.getTime() + 901_000);
        expect(await verifyTarget({ ...request, now: later }, lookup, OPTIONS)).toMatchObject({
          ok: false,
          error: 'PresignedUrlExpired',
        });
      }
    });
  }

  it('refuses a dot-segment key once a URL parser has normalised the path', async () => {
    const s3 = client();
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'bucket', Key: 'a/../b' }), {
      expiresIn: 900,
    });
    s3.destroy();
    const request = await fetchCaptured('GET', url);
    expect(request.rawTarget.startsWith('/bucket/b?')).toBe(true);
    expect(await verifyTarget(request, lookup, OPTIONS)).toMatchObject({
      ok: false,
      error: 'SignatureDoesNotMatch',
    });
  });
});
