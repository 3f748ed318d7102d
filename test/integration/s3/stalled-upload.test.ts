/**
 * An upload whose client stops sending is S3's 400 RequestTimeout, not a backend outage (503): the
 * gateway answers once the body has been silent for GATEWAY_S3_BODY_IDLE_TIMEOUT_MS, closes the
 * connection, and the store keeps nothing of the part that arrived. The small XML bodies the
 * gateway reads whole (DeleteObjects, CompleteMultipartUpload, an ACL) are watched the same way,
 * and nothing of them is forwarded.
 */
import http from 'node:http';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsChunkedLength, chunkFrame } from '../../support/aws-chunked.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import { createBucket } from '../../support/s3/fixtures.js';
import { parseS3Error, queryString, signedHeaders } from '../../support/s3/raw-requests.js';
import { startRecordingBackend, type RecordingBackend } from '../../support/s3/recording-backend.js';

const REQUEST_TIMEOUT_MESSAGE =
  'Your socket connection to the server was not read from or written to within the timeout period.';

interface StalledAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Whether the server closed the connection after answering. */
  closed: Promise<void>;
}

/** Sends the request head and the first bytes of the body, then nothing: a client that stalls. */
function stall(
  baseUrl: string,
  request: { method: string; target: string; headers: Record<string, string>; firstBytes: Buffer },
): Promise<StalledAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = http.request({
      host: url.hostname,
      port: url.port,
      method: request.method,
      path: request.target,
      headers: request.headers,
      agent: false,
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const closed = new Promise<void>((closedNow) => response.socket.once('close', () => closedNow()));
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          closed,
        }),
      );
    });
    outgoing.write(request.firstBytes);
  });
}

for (const behind of ['the embedded store', 'the recording backend'] as const) {
  describe(`a stalled upload behind ${behind}`, () => {
    let backend: RecordingBackend | null = null;
    let gateway: TestGateway;
    let s3: S3Client;

    beforeAll(async () => {
      backend = behind === 'the recording backend' ? await startRecordingBackend() : null;
      gateway = await startTestGateway({
        ...(backend?.env ?? {}),
        GATEWAY_S3_BODY_IDLE_TIMEOUT_MS: '300',
      });
      await createBucket(gateway, 'stalls');
      s3 = pathStyleClient(gateway);
    });
    afterAll(async () => {
      await gateway?.stop();
      await backend?.stop();
    });

    async function stalledPut(
      key: string,
      headers: Record<string, string>,
      payloadHash: string,
      firstBytes: Buffer = Buffer.alloc(1_000, 0x61),
    ) {
      const target = `/stalls/${key}`;
      const signed = await signedHeaders({
        credential: gateway.credential,
        method: 'PUT',
        baseUrl: gateway.s3Url,
        path: target,
        payloadHash,
        headers,
      });
      return stall(gateway.s3Url, {
        method: 'PUT',
        target,
        headers: signed,
        firstBytes,
      });
    }

    it('answers 400 RequestTimeout for a PUT whose body stops, closes the connection and stores nothing', async () => {
      const answer = await stalledPut(
        'plain.bin',
        { 'content-length': String(64 * 1024) },
        'UNSIGNED-PAYLOAD',
      );
      expect(answer.status).toBe(400);
      expect(answer.headers['content-type']).toBe('application/xml');
      expect(answer.headers.connection).toBe('close');
      const error = parseS3Error(answer.body);
      expect(error.code).toBe('RequestTimeout');
      expect(error.message).toBe(REQUEST_TIMEOUT_MESSAGE);
      expect(error.requestId).toBe(answer.headers['x-amz-request-id']);
      await answer.closed;
      await expectS3Error(s3.send(new HeadObjectCommand({ Bucket: 'stalls', Key: 'plain.bin' })), {
        code: 'NotFound',
        status: 404,
      });
      if (backend !== null) {
        const puts = backend.requests.filter(
          (request) => request.method === 'PUT' && request.target.startsWith('/stalls/plain.bin'),
        );
        expect(puts.filter((request) => request.bodyComplete)).toEqual([]);
      }
    });

    it('answers 400 RequestTimeout for an aws-chunked upload that stops between chunks', async () => {
      const data = Buffer.alloc(64 * 1024, 0x61);
      const chunkSize = data.length / 2;
      // the trailer never goes out: only its length counts, in the Content-Length
      const trailers = { 'x-amz-checksum-crc32': 'AAAAAA==' };
      const answer = await stalledPut(
        'chunked.bin',
        {
          'content-encoding': 'aws-chunked',
          'x-amz-decoded-content-length': String(data.length),
          'x-amz-trailer': 'x-amz-checksum-crc32',
          'content-length': String(awsChunkedLength(data.length, chunkSize, trailers)),
        },
        'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
        // the first of the two chunks, whole: the body stops at a chunk boundary
        chunkFrame(data.subarray(0, chunkSize)),
      );
      expect(answer.status).toBe(400);
      expect(parseS3Error(answer.body).code).toBe('RequestTimeout');
      await expectS3Error(s3.send(new HeadObjectCommand({ Bucket: 'stalls', Key: 'chunked.bin' })), {
        code: 'NotFound',
        status: 404,
      });
    });

    /** A signed request whose small XML body (read whole by the gateway) stops after `firstBytes`. */
    async function stalledXml(
      method: string,
      path: string,
      query: Record<string, string>,
      firstBytes: string,
    ) {
      const signed = await signedHeaders({
        credential: gateway.credential,
        method,
        baseUrl: gateway.s3Url,
        path,
        query,
        payloadHash: 'UNSIGNED-PAYLOAD',
        headers: { 'content-length': String(16 * 1024) },
      });
      const answer = await stall(gateway.s3Url, {
        method,
        target: `${path}${queryString(query)}`,
        headers: signed,
        firstBytes: Buffer.from(firstBytes),
      });
      expect(answer.status).toBe(400);
      expect(answer.headers.connection).toBe('close');
      const error = parseS3Error(answer.body);
      expect({ code: error.code, message: error.message }).toEqual({
        code: 'RequestTimeout',
        message: REQUEST_TIMEOUT_MESSAGE,
      });
      expect(error.requestId).toBe(answer.headers['x-amz-request-id']);
      await answer.closed;
    }

    const forwarded = (method: string, target: string) =>
      backend?.requests.filter((request) => request.method === method && request.target.startsWith(target)) ??
      [];

    it('answers 400 RequestTimeout for a DeleteObjects whose body stops, deleting nothing', async () => {
      await s3.send(new PutObjectCommand({ Bucket: 'stalls', Key: 'kept', Body: 'kept' }));
      await stalledXml('POST', '/stalls', { delete: '' }, '<Delete><Object><Key>kept</Key></Object>');
      expect((await s3.send(new HeadObjectCommand({ Bucket: 'stalls', Key: 'kept' }))).ContentLength).toBe(4);
      expect(forwarded('POST', '/stalls?delete')).toEqual([]);
    });

    it('answers 400 RequestTimeout for a CompleteMultipartUpload whose body stops, leaving the upload open', async () => {
      const { UploadId } = await s3.send(
        new CreateMultipartUploadCommand({ Bucket: 'stalls', Key: 'assembled.bin' }),
      );
      const part = await s3.send(
        new UploadPartCommand({
          Bucket: 'stalls',
          Key: 'assembled.bin',
          UploadId,
          PartNumber: 1,
          Body: 'one part',
        }),
      );
      await stalledXml(
        'POST',
        '/stalls/assembled.bin',
        { uploadId: UploadId as string },
        `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${part.ETag}</ETag></Part>`,
      );
      expect(forwarded('POST', '/stalls/assembled.bin?uploadId')).toEqual([]);
      await expectS3Error(s3.send(new HeadObjectCommand({ Bucket: 'stalls', Key: 'assembled.bin' })), {
        code: 'NotFound',
        status: 404,
      });
      // The upload the stalled request named is still there to be completed.
      await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'stalls',
          Key: 'assembled.bin',
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
        }),
      );
      const assembled = await s3.send(new GetObjectCommand({ Bucket: 'stalls', Key: 'assembled.bin' }));
      expect(await assembled.Body?.transformToString()).toBe('one part');
    });

    it('answers 400 RequestTimeout for a PutObjectAcl whose body stops', async () => {
      await s3.send(new PutObjectCommand({ Bucket: 'stalls', Key: 'acl.txt', Body: 'acl' }));
      await stalledXml('PUT', '/stalls/acl.txt', { acl: '' }, '<AccessControlPolicy><Owner><ID>');
      expect(forwarded('PUT', '/stalls/acl.txt?acl')).toEqual([]);
      expect((await s3.send(new HeadObjectCommand({ Bucket: 'stalls', Key: 'acl.txt' }))).ContentLength).toBe(
        3,
      );
    });
  });
}

describe('a stalled browser form upload', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ GATEWAY_S3_BODY_IDLE_TIMEOUT_MS: '300' });
    await createBucket(gateway, 'stalls');
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('answers 400 RequestTimeout when the form stops before its file', async () => {
    const boundary = 'stalled-form-boundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="key"\r\n\r\nphoto.jpg\r\n`,
    );
    const answer = await stall(gateway.s3Url, {
      method: 'POST',
      target: '/stalls',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': '100000',
        // A browser's form: bot protection lets unsigned requests with a browser's User-Agent through.
        'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0',
      },
      firstBytes: head,
    });
    expect(answer.status).toBe(400);
    expect(parseS3Error(answer.body).code).toBe('RequestTimeout');
  });
});
