/**
 * A body that fails verification never becomes an object, and never replaces one (decisions.md:
 * SHA-256 mismatch → XAmzContentSHA256Mismatch, checksum or Content-MD5 mismatch → BadDigest).
 * The requests are built by hand, since no SDK sends a corrupted body. Every case runs twice: behind
 * the recording backend, which also shows on the wire that no complete corrupted body left the
 * gateway, and in plain local mode, whose embedded store commits only bodies that arrived whole.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsChunkedBody } from '../../support/aws-chunked.js';
import { EVENTUALLY_TIMEOUT_MS, eventually } from '../../support/eventually.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import { createBucket } from '../../support/s3/fixtures.js';
import { startRecordingBackend, type RecordingBackend } from '../../support/s3/recording-backend.js';
import {
  describeRawError,
  sendRaw,
  sha256Hex,
  signedHeaders,
  type RawResponse,
} from '../../support/s3/raw-requests.js';

/** The recording backend, or null while the cases run in plain local mode. */
let backend: RecordingBackend | null;
let gateway: TestGateway;
let s3: S3Client;

/** Whether the recording backend ever received a complete upload body for this key. */
function backendGotCompleteBody(key: string): boolean {
  if (backend === null) return false;
  return backend.requests.some(
    (request) =>
      request.method === 'PUT' && request.target.split('?')[0] === `/vault/${key}` && request.bodyComplete,
  );
}

function crc32Base64(data: Buffer): string {
  const digest = Buffer.alloc(4);
  digest.writeUInt32BE(crc32(data));
  return digest.toString('base64');
}

async function putRaw(
  key: string,
  options: {
    payloadHash: string;
    headers?: Record<string, string>;
    body: Buffer;
    abortAfterBytes?: number;
    abortWhen?: () => Promise<unknown>;
  },
): Promise<RawResponse> {
  const path = `/vault/${key}`;
  const headers = await signedHeaders({
    credential: gateway.credential,
    method: 'PUT',
    baseUrl: gateway.s3Url,
    path,
    payloadHash: options.payloadHash,
    headers: options.headers ?? {},
  });
  return sendRaw(gateway.s3Url, {
    method: 'PUT',
    target: path,
    headers,
    body: options.body,
    ...(options.abortAfterBytes === undefined ? {} : { abortAfterBytes: options.abortAfterBytes }),
    ...(options.abortWhen === undefined ? {} : { abortWhen: options.abortWhen }),
  });
}

/** A streaming-trailer upload, as the AWS SDKs send one, with the given (possibly wrong) trailer. */
function chunkedUpload(
  key: string,
  data: Buffer,
  trailerValue: string,
  framing = awsChunkedBody(data, 64 * 1024, {}),
) {
  const body =
    trailerValue === '' ? framing : awsChunkedBody(data, 64 * 1024, { 'x-amz-checksum-crc32': trailerValue });
  return putRaw(key, {
    payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    headers: {
      'content-encoding': 'aws-chunked',
      'x-amz-decoded-content-length': String(data.length),
      'x-amz-trailer': 'x-amz-checksum-crc32',
    },
    body,
  });
}

async function absent(key: string): Promise<void> {
  await expectS3Error(s3.send(new HeadObjectCommand({ Bucket: 'vault', Key: key })), {
    code: 'NotFound',
    status: 404,
  });
}

async function contentOf(key: string): Promise<string> {
  const object = await s3.send(new GetObjectCommand({ Bucket: 'vault', Key: key }));
  return (await object.Body?.transformToString()) ?? '';
}

const badDigest = {
  status: 400,
  code: 'BadDigest',
  message: 'The Content-MD5 or checksum value that you specified did not match what the server received.',
  requestIdMatches: true,
};

describe.each(['recording backend', 'local mode'] as const)('behind the %s', (kind) => {
  beforeAll(async () => {
    backend = kind === 'recording backend' ? await startRecordingBackend() : null;
    gateway = await startTestGateway(backend?.env ?? {});
    s3 = pathStyleClient(gateway);
    await createBucket(gateway, 'vault');
  });
  afterAll(async () => {
    await gateway?.stop();
    await backend?.stop();
  });

  describe('aws-chunked uploads with a trailing checksum', () => {
    it('a correct trailer stores the decoded body and echoes the verified checksum', async () => {
      const data = Buffer.alloc(200_000, 'z');
      const response = await chunkedUpload('good.bin', data, crc32Base64(data));
      expect(response.status).toBe(200);
      expect(response.headers['x-amz-checksum-crc32']).toBe(crc32Base64(data));
      expect(await contentOf('good.bin')).toBe(data.toString());
    });

    it('a mutated body (CRC32 mismatch) is BadDigest and no object appears', async () => {
      const data = Buffer.alloc(3 * 1024 * 1024, 'a');
      const checksum = crc32Base64(data);
      data[1_500_000] = 0x62;
      expect(describeRawError(await chunkedUpload('mutated.bin', data, checksum))).toEqual(badDigest);
      if (backend !== null) {
        // Most of the 3 MiB went upstream as it arrived; the held-back tail never did.
        const forwarded = backend.requests.find((request) => request.target.startsWith('/vault/mutated.bin'));
        expect(forwarded?.bodyBytes).toBeGreaterThan(1024 * 1024);
        expect(forwarded?.bodyBytes).toBeLessThan(data.length);
      }
      expect(backendGotCompleteBody('mutated.bin')).toBe(false);
      await absent('mutated.bin');
    });

    it('a corrupted upload over an existing key leaves the object as it was', async () => {
      await s3.send(new PutObjectCommand({ Bucket: 'vault', Key: 'precious.txt', Body: 'original' }));
      const data = Buffer.from('replacement that got corrupted on the way');
      expect(
        describeRawError(await chunkedUpload('precious.txt', data, crc32Base64(Buffer.from('other')))),
      ).toEqual(badDigest);
      expect(await contentOf('precious.txt')).toBe('original');
    });

    it('broken chunk framing is refused and nothing is stored', async () => {
      const data = Buffer.from('hello framing');
      const broken = Buffer.from(`zz\r\n${data.toString()}\r\n0\r\n\r\n`);
      const response = await chunkedUpload('framing.bin', data, '', broken);
      expect(describeRawError(response)).toEqual({
        status: 400,
        code: 'InvalidRequest',
        message: 'The aws-chunked body is malformed.',
        requestIdMatches: true,
      });
      await absent('framing.bin');
    });

    it('a body shorter than its declared decoded length is IncompleteBody and nothing is stored', async () => {
      const data = Buffer.from('only part of it');
      const response = await putRaw('short.bin', {
        payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
        headers: {
          'content-encoding': 'aws-chunked',
          'x-amz-decoded-content-length': String(data.length + 100),
          'x-amz-trailer': 'x-amz-checksum-crc32',
        },
        body: awsChunkedBody(data, 1024, { 'x-amz-checksum-crc32': crc32Base64(data) }),
      });
      expect(describeRawError(response)).toMatchObject({ status: 400, code: 'IncompleteBody' });
      await absent('short.bin');
    });
  });

  describe('signed payloads and checksum headers', () => {
    it('a body that does not match x-amz-content-sha256 is XAmzContentSHA256Mismatch; the old object stays', async () => {
      await s3.send(new PutObjectCommand({ Bucket: 'vault', Key: 'signed.txt', Body: 'first version' }));
      const response = await putRaw('signed.txt', {
        payloadHash: sha256Hex('what was signed'),
        body: Buffer.from('what was sent!!'),
      });
      expect(describeRawError(response)).toEqual({
        status: 400,
        code: 'XAmzContentSHA256Mismatch',
        message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
        requestIdMatches: true,
      });
      expect(await contentOf('signed.txt')).toBe('first version');
    });

    it('a wrong x-amz-checksum-crc32 header is BadDigest', async () => {
      const body = Buffer.from('checked by header');
      const response = await putRaw('crc-header.txt', {
        payloadHash: 'UNSIGNED-PAYLOAD',
        headers: { 'x-amz-checksum-crc32': crc32Base64(Buffer.from('something else')) },
        body,
      });
      expect(describeRawError(response)).toEqual(badDigest);
      await absent('crc-header.txt');
    });

    it('a wrong Content-MD5 is BadDigest', async () => {
      const response = await putRaw('md5.txt', {
        payloadHash: 'UNSIGNED-PAYLOAD',
        headers: { 'content-md5': createHash('md5').update('not the body').digest('base64') },
        body: Buffer.from('the body'),
      });
      expect(describeRawError(response)).toEqual(badDigest);
      await absent('md5.txt');
    });

    it('two checksums for one body (two headers, or a header and a trailer): InvalidRequest 400, nothing stored', async () => {
      const body = Buffer.from('checked twice');
      const multiple = {
        status: 400,
        code: 'InvalidRequest',
        message: 'Expecting a single x-amz-checksum- header or trailer; more than one checksum was sent.',
        requestIdMatches: true,
      };
      const twoHeaders = await putRaw('two-headers.txt', {
        payloadHash: sha256Hex(body),
        headers: {
          'x-amz-checksum-crc32': crc32Base64(body),
          'x-amz-checksum-sha256': createHash('sha256').update(body).digest('base64'),
        },
        body,
      });
      expect(describeRawError(twoHeaders)).toEqual(multiple);
      await absent('two-headers.txt');
      const headerAndTrailer = await putRaw('header-and-trailer.txt', {
        payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
        headers: {
          'content-encoding': 'aws-chunked',
          'x-amz-decoded-content-length': String(body.length),
          'x-amz-trailer': 'x-amz-checksum-crc32',
          'x-amz-checksum-crc32': crc32Base64(body),
        },
        body: awsChunkedBody(body, 64 * 1024, { 'x-amz-checksum-crc32': crc32Base64(body) }),
      });
      expect(describeRawError(headerAndTrailer)).toEqual(multiple);
      await absent('header-and-trailer.txt');
    });

    it('a client that goes away mid-upload leaves no object behind', async () => {
      const body = Buffer.alloc(2 * 1024 * 1024, 'q');
      const recording = backend;
      const upstream = () =>
        recording?.requests.find((request) => request.target.startsWith('/vault/abandoned.bin'));
      // The client leaves mid-upload: once the store is receiving the body (behind the recording
      // backend), or once the gateway is handling the request (local mode, where the store is out of sight).
      const inFlight = async () => {
        if (recording !== null) {
          await eventually('the store receives the upload', () => (upstream()?.bodyBytes ?? 0) > 0);
          return;
        }
        await eventually('the gateway handles the upload', async () => {
          const metrics = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
          return Number(/^gateway_s3_in_flight_requests (\d+)$/m.exec(metrics)?.[1] ?? 0) > 0;
        });
      };
      await putRaw('abandoned.bin', {
        payloadHash: 'UNSIGNED-PAYLOAD',
        body,
        abortAfterBytes: 512 * 1024,
        abortWhen: inFlight,
      });
      if (recording !== null) {
        // The gateway aborts its upstream request when its client goes, not when the backend timeout
        // would end it: the wait ends (or fails) well before that timeout.
        expect(gateway.config.backend.timeoutSeconds * 1000).toBeGreaterThan(EVENTUALLY_TIMEOUT_MS);
        await eventually('the upstream request is abandoned', () => upstream()?.abandoned);
      }
      // The gateway is done with the request once it logged it: anything it was going to store is stored.
      await eventually('the abandoned upload is logged', () =>
        gateway.logs.some((line) => {
          const entry = JSON.parse(line) as { msg?: string; target?: string };
          return entry.msg === 's3 request' && entry.target === '/vault/abandoned.bin';
        }),
      );
      expect(backendGotCompleteBody('abandoned.bin')).toBe(false);
      await absent('abandoned.bin');
    });

    it('a correct signed payload with a correct checksum header is stored', async () => {
      const body = Buffer.from('all verified');
      const response = await putRaw('verified.txt', {
        payloadHash: sha256Hex(body),
        headers: { 'x-amz-checksum-crc32': crc32Base64(body) },
        body,
      });
      expect(response.status).toBe(200);
      expect(await contentOf('verified.txt')).toBe('all verified');
    });
  });
});
