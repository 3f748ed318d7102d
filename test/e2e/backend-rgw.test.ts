import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { createServer, type Server, type Socket } from 'node:net';
import {
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { BackendError, type BackendErrorKind } from '../../src/backend/object-store.js';
import { S3Backend } from '../../src/backend/s3-backend.js';
import { awsChunkedBody } from '../support/aws-chunked.js';
import { sdkClient, sha256Hex, signedRequest, xmlElement } from './support/rgw.js';

const rgw = inject('rgw');
const run = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const bucketName = (purpose: string): string => `e2e-${run}-${purpose}`;

function backendAt(url: string, overrides: { timeoutMs?: number; secretAccessKey?: string } = {}): S3Backend {
  return new S3Backend({
    endpoint: url,
    region: rgw.region,
    accessKeyId: rgw.accessKeyId,
    secretAccessKey: overrides.secretAccessKey ?? rgw.secretAccessKey,
    timeoutMs: overrides.timeoutMs ?? 10_000,
    label: 'e2e',
  });
}

async function rejection(promise: Promise<unknown>): Promise<BackendError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(BackendError);
    return error as BackendError;
  }
  throw new Error('expected a rejection');
}

async function expectKind(promise: Promise<unknown>, kind: BackendErrorKind, s3Code?: string): Promise<void> {
  const error = await rejection(promise);
  expect({ kind: error.kind, s3Code: error.s3Code }).toEqual({ kind, s3Code: s3Code ?? error.s3Code });
  expect(error.message).not.toBe('');
}

/** Runs `work` over `items` with at most `width` in flight. */
async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const created: string[] = [];
let backend: S3Backend;
let client: S3Client;

beforeAll(() => {
  backend = backendAt(rgw.url);
  client = sdkClient(rgw);
});

afterAll(async () => {
  for (const bucket of created) {
    try {
      for (;;) {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
        const keys = (page.Contents ?? []).map((object) => object.Key!);
        if (keys.length === 0) break;
        await inParallel(keys, 16, (Key) => client.send(new DeleteObjectCommand({ Bucket: bucket, Key })));
      }
      await client.send(new DeleteBucketCommand({ Bucket: bucket }));
    } catch {
      // already gone
    }
  }
  await backend.close();
  client.destroy();
});

async function newBucket(purpose: string): Promise<string> {
  const name = bucketName(purpose);
  await backend.createBucket(name);
  created.push(name);
  return name;
}

const put = (bucket: string, key: string, body: string | Buffer = 'x') =>
  client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));

describe('S3Backend against Ceph RGW', () => {
  it('creates a bucket, and a second creation of it is bucket-exists', async () => {
    const name = await newBucket('create');
    await expectKind(backend.createBucket(name), 'bucket-exists', 'BucketAlreadyOwnedByYou');
    // still there and usable
    await put(name, 'k');
    expect(
      (await client.send(new HeadObjectCommand({ Bucket: name, Key: 'k' }))).$metadata.httpStatusCode,
    ).toBe(200);
  });

  it.skipIf(rgw.directory === null)(
    "surfaces another RGW user's bucket as bucket-exists (BucketAlreadyExists)",
    async () => {
      const other = { accessKeyId: `other-${run}`, secretAccessKey: `other-secret-${run}` };
      await promisify(execFile)('radosgw-admin', [
        '-c',
        path.join(rgw.directory!, 'ceph.conf'),
        '-n',
        'client.admin',
        'user',
        'create',
        `--uid=other-${run}`,
        '--display-name=another tenant of the store',
        `--access-key=${other.accessKeyId}`,
        `--secret-key=${other.secretAccessKey}`,
      ]);
      const name = bucketName('foreign');
      const res = await signedRequest({ ...rgw, ...other }, { method: 'PUT', path: `/${name}` });
      expect(res.status).toBe(200);
      try {
        await expectKind(backend.createBucket(name), 'bucket-exists', 'BucketAlreadyExists');
      } finally {
        await signedRequest({ ...rgw, ...other }, { method: 'DELETE', path: `/${name}` });
      }
    },
  );

  it('refuses an invalid bucket name with kind other', async () => {
    await expectKind(backend.createBucket('ab'), 'other', 'InvalidBucketName');
  });

  it('deletes buckets: non-empty is bucket-not-empty, missing is no-such-bucket', async () => {
    const name = await newBucket('delete');
    await put(name, 'only');
    await expectKind(backend.deleteBucket(name), 'bucket-not-empty', 'BucketNotEmpty');
    await backend.deleteObjects(name, ['only']);
    await backend.deleteBucket(name);
    await expectKind(backend.deleteBucket(name), 'no-such-bucket', 'NoSuchBucket');
    await expectKind(backend.listObjects(name, { limit: 10 }), 'no-such-bucket', 'NoSuchBucket');
  });

  describe('listObjects', () => {
    let bucket: string;
    // unusual characters: the listing must give back exactly the keys that were written
    const odd = [
      'odd/sp ace',
      'odd/plus+sign',
      'odd/pct%41',
      'odd/100%',
      'odd/uni-é',
      'odd/amp&lt;',
      'odd/cr\rlf\n',
      'odd/ctl\u0001',
    ];
    const keys = ['a/1', 'a/2', 'a/b/3', 'a/b/4', 'a/c/5', 'b/6', 'top', ...odd].sort();

    beforeAll(async () => {
      bucket = await newBucket('list');
      await inParallel(keys, 8, (key) => put(bucket, key, key));
    });

    it('returns every key with its size and ETag', async () => {
      const page = await backend.listObjects(bucket, { limit: 1000 });
      expect(page.objects.map((object) => object.key)).toEqual(keys);
      expect(page.nextCursor).toBeNull();
      const top = page.objects.find((object) => object.key === 'top')!;
      expect(top.size).toBe(3);
      expect(top.etag).toBe(`"${createHash('md5').update('top').digest('hex')}"`);
      expect(top.lastModified).toBeInstanceOf(Date);
    });

    it('filters by prefix and groups by delimiter', async () => {
      const page = await backend.listObjects(bucket, { prefix: 'a/', delimiter: '/', limit: 1000 });
      expect(page.objects.map((object) => object.key)).toEqual(['a/1', 'a/2']);
      expect(page.commonPrefixes).toEqual(['a/b/', 'a/c/']);
      const root = await backend.listObjects(bucket, { delimiter: '/', limit: 1000 });
      expect(root.objects.map((object) => object.key)).toEqual(['top']);
      expect(root.commonPrefixes).toEqual(['a/', 'b/', 'odd/']);
      const odd = await backend.listObjects(bucket, { prefix: 'odd/pct%', limit: 1000 });
      expect(odd.objects.map((object) => object.key)).toEqual(['odd/pct%41']);
    });

    it('pages with a cursor, without gaps or repeats, also with a delimiter', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await backend.listObjects(bucket, { limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.objects.length).toBeLessThanOrEqual(2);
        seen.push(...page.objects.map((object) => object.key));
        cursor = page.nextCursor ?? undefined;
        pages += 1;
      } while (cursor);
      expect(seen).toEqual(keys);
      expect(pages).toBe(Math.ceil(keys.length / 2));

      const entries: string[] = [];
      cursor = undefined;
      do {
        const page = await backend.listObjects(bucket, {
          delimiter: '/',
          limit: 1,
          ...(cursor ? { cursor } : {}),
        });
        entries.push(...page.objects.map((object) => object.key), ...page.commonPrefixes);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(entries.sort()).toEqual(['a/', 'b/', 'odd/', 'top']);
    });
  });

  describe('deleteObjects', () => {
    it('deletes in batches (more than the 1000 keys one request may carry)', async () => {
      const bucket = await newBucket('batch');
      const keys = Array.from({ length: 1203 }, (_, i) => `k/${String(i).padStart(5, '0')}`);
      await inParallel(keys, 24, (key) => put(bucket, key));
      const results = await backend.deleteObjects(bucket, [...keys, 'never-written']);
      expect(results).toHaveLength(keys.length + 1);
      expect(results.every((result) => result.deleted)).toBe(true);
      expect((await backend.listObjects(bucket, { limit: 10 })).objects).toEqual([]);
      expect(await backend.deleteObjects(bucket, [])).toEqual([]);
    });

    it('deletes keys that XML 1.0 cannot carry (RGW refuses the whole batch otherwise)', async () => {
      const bucket = await newBucket('xmlkeys');
      const keys = ['plain', 'ctl\u0001char', 'tab\tand\rcr', 'amp&<>"\'', 'pct%2F', 'uni-é'];
      await inParallel(keys, 4, (key) => put(bucket, key));
      const results = await backend.deleteObjects(bucket, keys);
      expect(results).toEqual(keys.map((key) => ({ key, deleted: true })));
      expect((await backend.listObjects(bucket, { limit: 10 })).objects).toEqual([]);
    });

    it('reports a missing bucket', async () => {
      await expectKind(backend.deleteObjects(bucketName('missing'), ['a']), 'no-such-bucket', 'NoSuchBucket');
    });
  });

  describe('checkHealth', () => {
    it('resolves while RGW answers', async () => {
      await backend.checkHealth();
    });

    it('rejects wrong credentials with the S3 code', async () => {
      const wrong = backendAt(rgw.url, { secretAccessKey: 'not-the-secret' });
      try {
        await expectKind(wrong.checkHealth(), 'other', 'SignatureDoesNotMatch');
      } finally {
        await wrong.close();
      }
    });

    it('rejects quickly with unavailable when nothing listens (RGW stopped)', async () => {
      const port = await freePort();
      // A timeout no refusal comes near: an answer that waited for it would say so.
      const down = backendAt(`http://127.0.0.1:${port}`, { timeoutMs: 60_000 });
      try {
        const error = await rejection(down.checkHealth());
        expect(error.kind).toBe('unavailable');
        expect(error.message).toMatch(/ECONNREFUSED/);
      } finally {
        await down.close();
      }
    });

    it('rejects with unavailable within the configured timeout when the store hangs', async () => {
      const { server, port, sockets } = await silentServer();
      const hung = backendAt(`http://127.0.0.1:${port}`, { timeoutMs: 1500 });
      // The call's bound, as it is set: the configured timeout, once for the whole call. Its length is
      // Node's timers' business, so no stopwatch is held against it here.
      const bounds = vi.spyOn(AbortSignal, 'timeout');
      try {
        const error = await rejection(hung.checkHealth());
        expect(bounds.mock.calls).toEqual([[1500]]);
        // That bound ended the call: its message names it (a refusal or a reset would say otherwise),
        // and the one attempt was not followed by a second (the timeout bounds the whole call, not
        // each attempt).
        expect(error.kind).toBe('unavailable');
        expect(error.message).toBe('the object store did not answer within 1500 ms');
        expect(sockets).toHaveLength(1);
      } finally {
        bounds.mockRestore();
        await hung.close();
        for (const socket of sockets) socket.destroy();
        server.close();
      }
    });

    it.skipIf(rgw.rgwPid === null)(
      'rejects within the timeout while radosgw is paused, recovers after',
      async () => {
        const pid = rgw.rgwPid!;
        const probe = backendAt(rgw.url, { timeoutMs: 1500 });
        process.kill(pid, 'SIGSTOP');
        // resumes radosgw even if checkHealth never settles, so one failure cannot wedge the suite
        // (a bound for a hang only: the check must end by the 1.5 s timeout long before)
        const watchdog = setTimeout(() => process.kill(pid, 'SIGCONT'), 30_000);
        try {
          // the timeout ended the call (not RGW's answer, nor a connection error): its message says so
          const error = await rejection(probe.checkHealth());
          expect(error.kind).toBe('unavailable');
          expect(error.message).toBe('the object store did not answer within 1500 ms');
        } finally {
          clearTimeout(watchdog);
          process.kill(pid, 'SIGCONT');
        }
        try {
          await probe.checkHealth();
        } finally {
          await probe.close();
        }
      },
    );
  });
});

describe('Ceph RGW 16 behaviour the storage endpoint must handle (raw signed requests)', () => {
  let bucket: string;
  const body = Buffer.from('hello from the e2e suite\n'.repeat(40));

  beforeAll(async () => {
    bucket = await newBucket('raw');
  });

  const getText = async (key: string): Promise<string> => {
    const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return object.Body!.transformToString();
  };

  it('accepts PUT with x-amz-content-sha256: UNSIGNED-PAYLOAD and a Content-Length', async () => {
    const res = await signedRequest(rgw, {
      method: 'PUT',
      path: `/${bucket}/unsigned`,
      headers: { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      body,
    });
    expect(res.status).toBe(200);
    expect(await getText('unsigned')).toBe(body.toString());
  });

  it('accepts a hex SHA-256 payload hash and refuses a wrong one (XAmzContentSHA256Mismatch)', async () => {
    const ok = await signedRequest(rgw, { method: 'PUT', path: `/${bucket}/hashed`, body });
    expect(ok.status).toBe(200);
    const bad = await signedRequest(rgw, {
      method: 'PUT',
      path: `/${bucket}/hashed`,
      headers: { 'x-amz-content-sha256': sha256Hex('something else') },
      body: 'changed',
    });
    expect(bad.status).toBe(400);
    expect(xmlElement(bad.body, 'Code')).toBe('XAmzContentSHA256Mismatch');
    expect(await getText('hashed')).toBe(body.toString());
  });

  it('accepts STREAMING-AWS4-HMAC-SHA256-PAYLOAD (aws-chunked with chunk signatures)', async () => {
    const res = await signedRequest(rgw, {
      method: 'PUT',
      path: `/${bucket}/streamed`,
      body,
      streamingChunkSize: 300,
    });
    expect(res.status).toBe(200);
    expect(await getText('streamed')).toBe(body.toString());
  });

  it('refuses STREAMING-UNSIGNED-PAYLOAD-TRAILER with 400 XAmzContentSHA256Mismatch', async () => {
    const data = Buffer.from('trailer body');
    const encoded = awsChunkedBody(data, data.length, { 'x-amz-checksum-crc32': 'AAAAAA==' });
    const res = await signedRequest(rgw, {
      method: 'PUT',
      path: `/${bucket}/trailer`,
      headers: {
        'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
        'x-amz-decoded-content-length': String(data.length),
        'x-amz-trailer': 'x-amz-checksum-crc32',
        'content-encoding': 'aws-chunked',
      },
      body: encoded,
    });
    expect(res.status).toBe(400);
    expect(xmlElement(res.body, 'Code')).toBe('XAmzContentSHA256Mismatch');
  });

  it('refuses Transfer-Encoding: chunked without Content-Length with 411 MissingContentLength', async () => {
    const res = await signedRequest(rgw, {
      method: 'PUT',
      path: `/${bucket}/chunked`,
      headers: { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      body,
      chunked: true,
    });
    expect(res.status).toBe(411);
    expect(xmlElement(res.body, 'Code')).toBe('MissingContentLength');
  });

  it('ignores a wrong x-amz-checksum-crc32 and keeps no checksum', async () => {
    const res = await signedRequest(rgw, {
      method: 'PUT',
      path: `/${bucket}/crc`,
      headers: { 'x-amz-checksum-crc32': 'AAAAAA==' },
      body,
    });
    expect(res.status).toBe(200);
    const head = await client.send(
      new HeadObjectCommand({ Bucket: bucket, Key: 'crc', ChecksumMode: 'ENABLED' }),
    );
    expect(head.ChecksumCRC32).toBeUndefined();
    expect(await getText('crc')).toBe(body.toString());
  });

  it('answers CompleteMultipartUpload with an empty ETag; HEAD gives the real one', async () => {
    const key = 'multi';
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    const partData = [randomBytes(5 * 1024 * 1024), randomBytes(1024)];
    const parts = [];
    for (const [index, data] of partData.entries()) {
      const { ETag } = await client.send(
        new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: index + 1, Body: data }),
      );
      parts.push({ ETag, PartNumber: index + 1 });
    }
    const xml =
      '<CompleteMultipartUpload>' +
      parts
        .map((p) => `<Part><PartNumber>${p.PartNumber}</PartNumber><ETag>${p.ETag}</ETag></Part>`)
        .join('') +
      '</CompleteMultipartUpload>';
    const res = await signedRequest(rgw, {
      method: 'POST',
      path: `/${bucket}/${key}`,
      query: { uploadId: UploadId! },
      body: xml,
    });
    expect(res.status).toBe(200);
    expect(xmlElement(res.body, 'ETag')).toBe('');
    const md5s = Buffer.concat(partData.map((data) => createHash('md5').update(data).digest()));
    const expected = `"${createHash('md5').update(md5s).digest('hex')}-2"`;
    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ETag).toBe(expected);
  });

  it('answers 200 when the owner re-creates its bucket; 409 BucketAlreadyExists with another ACL', async () => {
    const again = await signedRequest(rgw, { method: 'PUT', path: `/${bucket}` });
    expect(again.status).toBe(200);
    const otherAcl = await signedRequest(rgw, {
      method: 'PUT',
      path: `/${bucket}`,
      headers: { 'x-amz-acl': 'public-read' },
    });
    expect(otherAcl.status).toBe(409);
    expect(xmlElement(otherAcl.body, 'Code')).toBe('BucketAlreadyExists');
  });

  it('sends error bodies with an empty <Message>', async () => {
    const res = await signedRequest(rgw, { method: 'GET', path: `/${bucket}/no-such-key` });
    expect(res.status).toBe(404);
    expect(xmlElement(res.body, 'Code')).toBe('NoSuchKey');
    expect(xmlElement(res.body, 'Message')).toBe('');
  });

  it('accepts a multi-object delete without Content-MD5 or checksum header', async () => {
    await put(bucket, 'to-delete');
    const res = await signedRequest(rgw, {
      method: 'POST',
      path: `/${bucket}`,
      query: { delete: '' },
      body: '<Delete><Object><Key>to-delete</Key></Object></Delete>',
    });
    expect(res.status).toBe(200);
    expect(res.body).toContain('<Deleted><Key>to-delete</Key>');
  });

  it('refuses a whole multi-object delete with 400 and an empty body when a key holds U+0001', async () => {
    const res = await signedRequest(rgw, {
      method: 'POST',
      path: `/${bucket}`,
      query: { delete: '' },
      body: '<Delete><Object><Key>ok</Key></Object><Object><Key>bad&#x1;</Key></Object></Delete>',
    });
    expect(res.status).toBe(400);
    expect(res.body).toBe('');
  });

  it('percent-encodes keys with ListObjectsV2 encoding-type=url (/ as %2F, space as %20, + as %2B)', async () => {
    await put(bucket, 'enc/a b+c%é');
    const res = await signedRequest(rgw, {
      method: 'GET',
      path: `/${bucket}`,
      query: { 'list-type': '2', prefix: 'enc/', 'encoding-type': 'url' },
    });
    expect(res.status).toBe(200);
    expect(xmlElement(res.body, 'Key')).toBe('enc%2Fa%20b%2Bc%25%C3%A9');
    expect(xmlElement(res.body, 'EncodingType')).toBe('url');
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Accepts connections and never answers: a hung object store. */
async function silentServer(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, sockets };
}
