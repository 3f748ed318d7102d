/**
 * What reaches the object store: re-signed requests for the same bucket and key the client signed,
 * without the client's authentication or presigned parameters, and the 5 MiB multipart rule checked
 * against the backend's ListParts before a completion is forwarded.
 */
import { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { expectS3Error, pathStyleClient, virtualHostedClient } from '../../support/s3/clients.js';
import { createBucket } from '../../support/s3/fixtures.js';
import { startHeldPut } from '../../support/s3/held-upload.js';
import {
  describeRawError,
  queryString,
  sendRaw,
  sha256Hex,
  signedHeaders,
} from '../../support/s3/raw-requests.js';
import {
  startRecordingBackend,
  type RecordedRequest,
  type RecordingBackend,
} from '../../support/s3/recording-backend.js';

const MiB = 1024 * 1024;

let backend: RecordingBackend;
let gateway: TestGateway;
let s3: S3Client;

beforeAll(async () => {
  backend = await startRecordingBackend();
  gateway = await startTestGateway(backend.env);
  s3 = pathStyleClient(gateway);
  await createBucket(gateway, 'fwd');
});
afterAll(async () => {
  await gateway?.stop();
  await backend?.stop();
});

function requestsFor(pathPrefix: string): RecordedRequest[] {
  return backend.requests.filter((request) => request.target.startsWith(pathPrefix));
}

async function uploadParts(key: string, sizes: number[]) {
  const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'fwd', Key: key }));
  const parts = [];
  for (const [index, size] of sizes.entries()) {
    const part = await s3.send(
      new UploadPartCommand({
        Bucket: 'fwd',
        Key: key,
        UploadId: upload.UploadId,
        PartNumber: index + 1,
        Body: Buffer.alloc(size, index + 1),
      }),
    );
    parts.push({ PartNumber: index + 1, ETag: part.ETag });
  }
  return { uploadId: upload.UploadId as string, parts };
}

describe('start-up', () => {
  it('says which database and object store it runs against', () => {
    const started = gateway.logs
      .map((line) => JSON.parse(line) as { msg?: string; database?: string; backend?: string })
      .find((line) => line.msg?.startsWith('gateway started'));
    expect(started?.backend).toBe(`object store at ${backend.url}`);
    if (gateway.database !== null) {
      // A real PostgreSQL and a configured object store: nothing embedded.
      expect(started?.msg).toBe('gateway started against external PostgreSQL and object store');
    } else {
      expect(started?.msg).toMatch(/local mode/);
    }
  });
});

describe('multipart uploads', () => {
  it('completes when every non-final part is at least 5 MiB', async () => {
    const { uploadId, parts } = await uploadParts('big.bin', [5 * MiB, 1000]);
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'fwd',
        Key: 'big.bin',
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    const object = await s3.send(new GetObjectCommand({ Bucket: 'fwd', Key: 'big.bin' }));
    expect(object.ContentLength).toBe(5 * MiB + 1000);
    const listParts = requestsFor('/fwd/big.bin').filter((request) => request.method === 'GET');
    expect(listParts.map((request) => request.target)).toEqual([
      `/fwd/big.bin?uploadId=${uploadId}&max-parts=1000`,
      '/fwd/big.bin',
    ]);
  });

  it('answers a completion of an upload the store does not know with NoSuchUpload 404, never forwarding it', async () => {
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'fwd',
          Key: 'never-started.bin',
          UploadId: 'no-such-upload-id',
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"0123456789abcdef0123456789abcdef"' }] },
        }),
      ),
      {
        code: 'NoSuchUpload',
        status: 404,
        message:
          'The specified multipart upload does not exist: the upload id is wrong, or the upload was aborted or completed.',
      },
    );
    expect(requestsFor('/fwd/never-started.bin').map((request) => request.method)).toEqual(['GET']);
  });

  it('answers a completion in a bucket the store does not hold with NoSuchBucket 404, never forwarding it', async () => {
    await createBucket(gateway, 'fwd-not-in-store', { inBackend: false });
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'fwd-not-in-store',
          Key: 'never-started.bin',
          UploadId: 'no-such-upload-id',
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"0123456789abcdef0123456789abcdef"' }] },
        }),
      ),
      { code: 'NoSuchBucket', status: 404, message: 'The specified bucket does not exist.' },
    );
    expect(requestsFor('/fwd-not-in-store/').map((request) => request.method)).toEqual(['GET']);
  });

  it('refuses a non-final part under 5 MiB with EntityTooSmall 400 and never forwards the completion', async () => {
    const { uploadId, parts } = await uploadParts('small-parts.bin', [1024, 5 * MiB, 10]);
    await expectS3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'fwd',
          Key: 'small-parts.bin',
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
      {
        code: 'EntityTooSmall',
        status: 400,
        message: 'Your proposed upload is smaller than the minimum allowed object size.',
      },
    );
    expect(requestsFor('/fwd/small-parts.bin').filter((request) => request.method === 'POST')).toHaveLength(
      1,
    );
  });

  it('judges the 5 MiB rule by the parts the store keeps: part 1 sent twice, the first send finishing last', async () => {
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'fwd', Key: 'resent.bin' }));
    const uploadId = upload.UploadId as string;
    const large = Buffer.alloc(5 * MiB, 1);
    const first = await startHeldPut({
      baseUrl: gateway.s3Url,
      credential: gateway.credential,
      path: '/fwd/resent.bin',
      query: { partNumber: '1', uploadId },
      body: large,
      sentFirst: MiB,
    });
    // The resend, 1 KiB, overtakes the first send, which is still arriving.
    await s3.send(
      new UploadPartCommand({
        Bucket: 'fwd',
        Key: 'resent.bin',
        UploadId: uploadId,
        PartNumber: 1,
        Body: Buffer.alloc(1024, 2),
      }),
    );
    const kept = await first.finish();
    expect(kept.status).toBe(200);
    const last = await s3.send(
      new UploadPartCommand({
        Bucket: 'fwd',
        Key: 'resent.bin',
        UploadId: uploadId,
        PartNumber: 2,
        Body: Buffer.alloc(10, 3),
      }),
    );
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'fwd',
        Key: 'resent.bin',
        UploadId: uploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: kept.headers.etag as string },
            { PartNumber: 2, ETag: last.ETag },
          ],
        },
      }),
    );
    expect(done.$metadata.httpStatusCode).toBe(200);
    const object = await s3.send(new GetObjectCommand({ Bucket: 'fwd', Key: 'resent.bin' }));
    expect(object.ContentLength).toBe(5 * MiB + 10);
  });

  it('lets a single small part through: the final part may be any size', async () => {
    const { uploadId, parts } = await uploadParts('one-part.bin', [10]);
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: 'fwd',
        Key: 'one-part.bin',
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    expect(done.$metadata.httpStatusCode).toBe(200);
  });
});

describe('DeleteObjects', () => {
  /** A Delete document naming `key`, padded with whitespace to exactly `bytes` bytes. */
  function deleteDocument(key: string, bytes: number): string {
    const document = `<Delete><Object><Key>${key}</Key></Object>_</Delete>`;
    return document.replace('_', ' '.repeat(bytes - document.length + 1));
  }

  async function deleteObjects(body: string) {
    const query = { delete: '' };
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'POST',
      baseUrl: gateway.s3Url,
      path: '/fwd',
      query,
      payloadHash: sha256Hex(body),
    });
    return sendRaw(gateway.s3Url, { method: 'POST', target: `/fwd${queryString(query)}`, headers, body });
  }

  const deletesForwarded = () => requestsFor('/fwd?delete').length;

  it('refuses a body over 2 MiB with MalformedXML before anything reaches the store, deleting nothing', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'fwd', Key: 'kept-by-size', Body: 'kept' }));
    const forwardedBefore = deletesForwarded();
    const refused = await deleteObjects(deleteDocument('kept-by-size', 2 * MiB + 1));
    expect(describeRawError(refused)).toEqual({
      status: 400,
      code: 'MalformedXML',
      message: 'The XML you provided was not well-formed or did not validate against our published schema.',
      requestIdMatches: true,
    });
    expect(deletesForwarded()).toBe(forwardedBefore);
    const kept = await s3.send(new GetObjectCommand({ Bucket: 'fwd', Key: 'kept-by-size' }));
    expect(await kept.Body?.transformToString()).toBe('kept');
  });

  it('forwards a body of exactly 2 MiB', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'fwd', Key: 'deleted-at-limit', Body: 'gone' }));
    const forwardedBefore = deletesForwarded();
    const accepted = await deleteObjects(deleteDocument('deleted-at-limit', 2 * MiB));
    expect(accepted.status).toBe(200);
    expect(accepted.body).toContain('<Key>deleted-at-limit</Key>');
    expect(deletesForwarded()).toBe(forwardedBefore + 1);
    await expectS3Error(s3.send(new GetObjectCommand({ Bucket: 'fwd', Key: 'deleted-at-limit' })), {
      code: 'NoSuchKey',
      status: 404,
      message: 'The specified key does not exist.',
    });
  });
});

describe('re-signed requests', () => {
  it("carry the backend's signature and none of the client's authentication or streaming headers", async () => {
    const body = Readable.from([Buffer.alloc(100_000, 'x'), Buffer.from('tail')]);
    await s3.send(
      new PutObjectCommand({ Bucket: 'fwd', Key: 'resigned.bin', Body: body, ContentLength: 100_004 }),
    );
    const [forwarded] = requestsFor('/fwd/resigned.bin');
    expect(forwarded?.signatureValid).toBe(true);
    expect(forwarded?.headers.authorization).toContain(`Credential=${backend.accessKeyId}/`);
    expect(forwarded?.headers.authorization).not.toContain(gateway.credential.accessKeyId);
    expect(forwarded?.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(forwarded?.headers['content-length']).toBe('100004');
    expect(forwarded?.bodyBytes).toBe(100_004);
    for (const dropped of [
      'content-encoding',
      'x-amz-decoded-content-length',
      'x-amz-trailer',
      'x-amz-security-token',
      'user-agent',
      'amz-sdk-invocation-id',
      'expect',
      'transfer-encoding',
    ]) {
      expect(forwarded?.headers[dropped], dropped).toBeUndefined();
    }
    expect(backend.requests.every((request) => request.signatureValid)).toBe(true);
  });

  it('never forward presigned parameters', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'fwd', Key: 'presigned.txt', Body: 'p' }));
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'fwd', Key: 'presigned.txt' }));
    const response = await fetch(url, { headers: { 'user-agent': 'fetch-test' } });
    expect(await response.text()).toBe('p');
    const gets = requestsFor('/fwd/presigned.txt').filter((request) => request.method === 'GET');
    expect(gets.map((request) => request.target)).toEqual(['/fwd/presigned.txt']);
  });

  it('address exactly the bucket and key the client signed, path-style, whatever the addressing', async () => {
    await virtualHostedClient(gateway).send(
      new PutObjectCommand({ Bucket: 'fwd', Key: 'v host/a+b', Body: 'v' }),
    );
    expect(requestsFor('/fwd/v%20host/a%2Bb')).toHaveLength(1);

    const path = '/fwd/double//slash%2Fin%20key~';
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'PUT',
      baseUrl: gateway.s3Url,
      path,
      payloadHash: sha256Hex('exact'),
    });
    // s3rver cannot route an empty path segment; what matters here is what it was asked for.
    await sendRaw(gateway.s3Url, { method: 'PUT', target: path, headers, body: 'exact' });
    // `%2F` and `/` decode to the same key; the backend gets one spelling, every byte of the key intact.
    expect(requestsFor('/fwd/double').map((request) => request.target)).toEqual([
      '/fwd/double//slash/in%20key~',
    ]);
  });

  it('never carry a body on GET, HEAD or DELETE: unframed, it would reach the backend as a second request', async () => {
    await createBucket(gateway, 'fwd-public', { public: true });
    await s3.send(new PutObjectCommand({ Bucket: 'fwd-public', Key: 'kept', Body: 'still here' }));
    const smuggled = 'DELETE /fwd-public/kept HTTP/1.1\r\nHost: backend\r\nContent-Length: 0\r\n\r\n';
    for (const method of ['GET', 'HEAD', 'DELETE']) {
      const path = `/fwd-public/smuggle-${method.toLowerCase()}`;
      const headers = await signedHeaders({
        credential: gateway.credential,
        method,
        baseUrl: gateway.s3Url,
        path,
        payloadHash: sha256Hex(smuggled),
      });
      await sendRaw(gateway.s3Url, { method, target: path, headers, body: smuggled });
    }
    // Anonymous readers of a public bucket need no credential at all.
    const anonymous = { 'user-agent': 'smuggler/1' };
    await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/fwd-public/kept',
      headers: anonymous,
      body: smuggled,
    });
    // A smuggled request would reach the backend as soon as the bytes carrying it, which the gateway
    // writes before it has the carrier's answer. A request sent after those answers, and answered,
    // has been received after them: once the backend records it, it would have recorded them too.
    await sendRaw(gateway.s3Url, { method: 'GET', target: '/fwd-public/barrier', headers: anonymous });
    expect(requestsFor('/fwd-public/barrier')).toHaveLength(1);
    expect(requestsFor('/fwd-public/kept').map((request) => [request.method, request.bodyBytes])).toEqual([
      ['PUT', 10],
      ['GET', 0],
    ]);
    const smuggling = requestsFor('/fwd-public/smuggle-');
    expect(smuggling.map((request) => request.method)).toEqual(['GET', 'HEAD', 'DELETE']);
    expect(smuggling.map((request) => request.bodyBytes)).toEqual([0, 0, 0]);
    expect(backend.requests.every((request) => request.signatureValid)).toBe(true);
  });

  it('never carry a control character into a header the store writes: refused at the edge', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'fwd', Key: 'splittable', Body: 'body' }));
    const before = backend.requests.length;
    for (const method of ['GET', 'HEAD']) {
      const queries: Record<string, string>[] = [
        { 'response-content-type': 'text/plain\r\nX-Injected: 1' },
        { 'response-content-disposition': 'attachment\u0000' },
        { 'X-Amz-Meta-Note': 'line\nbreak' },
      ];
      for (const query of queries) {
        const headers = await signedHeaders({
          credential: gateway.credential,
          method,
          baseUrl: gateway.s3Url,
          path: '/fwd/splittable',
          query,
          payloadHash: sha256Hex(''),
        });
        const answer = await sendRaw(gateway.s3Url, {
          method,
          target: `/fwd/splittable${queryString(query)}`,
          headers,
        });
        expect(answer.status, `${method} ${JSON.stringify(query)}`).toBe(400);
        if (method === 'GET') expect(describeRawError(answer)).toMatchObject({ code: 'InvalidArgument' });
      }
    }
    expect(backend.requests.length).toBe(before);
  });

  it('ignore an Expect header they do not know, empty or not, as S3 does (no 417)', async () => {
    for (const expectation of ['', 'something-else', '200-ok']) {
      const path = `/fwd/expect-${expectation.length}`;
      const body = `expect ${JSON.stringify(expectation)}`;
      const put = await signedHeaders({
        credential: gateway.credential,
        method: 'PUT',
        baseUrl: gateway.s3Url,
        path,
        headers: { 'content-length': String(Buffer.byteLength(body)) },
        payloadHash: sha256Hex(body),
      });
      const stored = await sendRaw(gateway.s3Url, {
        method: 'PUT',
        target: path,
        headers: { ...put, expect: expectation },
        body,
      });
      expect(stored.status, `PUT with Expect: ${expectation}`).toBe(200);
      const get = await signedHeaders({
        credential: gateway.credential,
        method: 'GET',
        baseUrl: gateway.s3Url,
        path,
        payloadHash: sha256Hex(''),
      });
      const read = await sendRaw(gateway.s3Url, {
        method: 'GET',
        target: path,
        headers: { ...get, expect: expectation },
      });
      expect([read.status, read.body], `GET with Expect: ${expectation}`).toEqual([200, body]);
    }
  });

  it('send the copy source re-encoded from its strict decoding', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'fwd', Key: 'source file', Body: 'copy me' }));
    await s3.send(new CopyObjectCommand({ Bucket: 'fwd', Key: 'copied', CopySource: '/fwd/source%20file' }));
    const [copy] = requestsFor('/fwd/copied');
    expect(copy?.headers['x-amz-copy-source']).toBe('/fwd/source%20file');
  });

  it('take a copy source whose separator is percent-encoded (bucket%2Fkey), decoded whole before it is split', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'fwd', Key: 'encoded/source.txt', Body: 'copied whole' }));
    const copy = async (source: string, key: string) =>
      sendRaw(gateway.s3Url, {
        method: 'PUT',
        target: `/fwd/${key}`,
        headers: await signedHeaders({
          credential: gateway.credential,
          method: 'PUT',
          baseUrl: gateway.s3Url,
          path: `/fwd/${key}`,
          headers: { 'x-amz-copy-source': source },
          payloadHash: 'UNSIGNED-PAYLOAD',
        }),
      });
    const copied = await copy('fwd%2Fencoded%2Fsource.txt', 'encoded-copy.txt');
    expect(copied.status, copied.body).toBe(200);
    const [forwarded] = requestsFor('/fwd/encoded-copy.txt');
    expect(forwarded?.headers['x-amz-copy-source']).toBe('/fwd/encoded/source.txt');
    const stored = await s3.send(new GetObjectCommand({ Bucket: 'fwd', Key: 'encoded-copy.txt' }));
    expect(await stored.Body?.transformToString()).toBe('copied whole');
    // What is still malformed once decoded stays refused, before anything reaches the store.
    for (const source of ['fwd%2F', 'fwd%2F..%2Fx', 'fwd%2Fbad%zz']) {
      expect(describeRawError(await copy(source, 'never-encoded.txt')), source).toMatchObject({
        status: 400,
        code: 'InvalidArgument',
        message:
          'Copy Source must mention the source bucket and key: sourcebucket/sourcekey, URL-encoded, without dot segments.',
      });
    }
    expect(requestsFor('/fwd/never-encoded.txt')).toEqual([]);
  });

  it('never carry a copy whose source is malformed or missing: the refusal comes first', async () => {
    const refusals = [
      { CopySource: 'fwd/bad%zz', code: 'InvalidArgument' },
      { CopySource: 'fwd/a/../copied', code: 'InvalidArgument' },
      { CopySource: 'fwd/', code: 'InvalidArgument' },
      { CopySource: 'fwd/not-there', code: 'NoSuchKey' },
      { CopySource: 'no-such-bucket/x', code: 'NoSuchBucket' },
    ];
    for (const { CopySource, code } of refusals) {
      const call = s3.send(new CopyObjectCommand({ Bucket: 'fwd', Key: 'never-copied', CopySource }));
      await expect(call).rejects.toMatchObject({ name: code });
    }
    // The existence check is a HEAD of the source; no copy (PUT) ever reached the backend.
    expect(requestsFor('/fwd/never-copied')).toEqual([]);
    expect(requestsFor('/fwd/not-there').map((request) => request.method)).toEqual(['HEAD']);
  });

  it("pass backend error documents through with the gateway's request id", async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'fwd', Key: 'part-source', Body: 'bytes' }));
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'fwd', Key: 'assembled' }));
    const query = { partNumber: '1', uploadId: upload.UploadId as string };
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'PUT',
      baseUrl: gateway.s3Url,
      path: '/fwd/assembled',
      query,
      headers: { 'x-amz-copy-source': 'fwd/part-source' },
      payloadHash: sha256Hex(''),
    });
    // s3rver does not implement UploadPartCopy: its refusal must reach the client intact.
    const response = await sendRaw(gateway.s3Url, {
      method: 'PUT',
      target: `/fwd/assembled${queryString(query)}`,
      headers,
    });
    expect(describeRawError(response)).toMatchObject({
      status: 501,
      code: 'NotImplemented',
      requestIdMatches: true,
    });
    const [forwarded] = requestsFor('/fwd/assembled?partNumber=1');
    expect(forwarded?.headers['x-amz-copy-source']).toBe('/fwd/part-source');
  });
});
