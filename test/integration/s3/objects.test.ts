import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketLocationCommand,
  GetObjectAclCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  S3ServiceException,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { metricDeltas, scrapeMetrics } from '../../support/metrics.js';
import { expectS3Error, pathStyleClient, virtualHostedClient } from '../../support/s3/clients.js';
import {
  createBucket,
  createCredential,
  createOrganisation,
  defaultOrganisation,
} from '../../support/s3/fixtures.js';
import {
  describeRawError,
  queryString,
  sendOnSocket,
  sendRaw,
  sha256Hex,
  signedHeaders,
} from '../../support/s3/raw-requests.js';
import {
  rgwEmptyEtag,
  startRecordingBackend,
  type RecordingBackend,
} from '../../support/s3/recording-backend.js';

let gateway: TestGateway;
let s3: S3Client;
/** Headers of every request the SDK sent, for asserting which upload mode it used. */
const sent: Record<string, string>[] = [];

beforeAll(async () => {
  gateway = await startTestGateway();
  await createBucket(gateway, 'photos');
  await createBucket(gateway, 'archive');
  const other = await createOrganisation(gateway, 'other-org');
  await createBucket(gateway, 'someone-elses', { organisationId: other.id });
  s3 = pathStyleClient(gateway);
  s3.middlewareStack.add(
    (next) => async (args) => {
      sent.push({ ...(args.request as { headers: Record<string, string> }).headers });
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low' },
  );
});
afterAll(async () => {
  await gateway?.stop();
});

async function text(client: S3Client, bucket: string, key: string): Promise<string> {
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await object.Body?.transformToString()) ?? '';
}

describe('objects through the AWS SDK (path-style, default checksums)', () => {
  it('puts, gets, heads, lists and deletes', async () => {
    await s3.send(
      new PutObjectCommand({ Bucket: 'photos', Key: 'cat.txt', Body: 'meow', ContentType: 'text/plain' }),
    );
    expect(await text(s3, 'photos', 'cat.txt')).toBe('meow');
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'cat.txt' }));
    expect(head.ContentLength).toBe(4);
    expect(head.ContentType).toBe('text/plain');
    expect(head.$metadata.requestId).toMatch(/^[0-9A-F]{16}$/);

    const v2 = await s3.send(new ListObjectsV2Command({ Bucket: 'photos' }));
    expect(v2.Contents?.map((object) => object.Key)).toContain('cat.txt');
    const v1 = await s3.send(new ListObjectsCommand({ Bucket: 'photos' }));
    expect(v1.Contents?.map((object) => object.Key)).toContain('cat.txt');

    await s3.send(new DeleteObjectCommand({ Bucket: 'photos', Key: 'cat.txt' }));
    await expectS3Error(s3.send(new GetObjectCommand({ Bucket: 'photos', Key: 'cat.txt' })), {
      code: 'NoSuchKey',
      status: 404,
    });
  });

  it('streams an upload of unknown length as STREAMING-UNSIGNED-PAYLOAD-TRAILER with a CRC32 trailer', async () => {
    const before = sent.length;
    const chunks = [Buffer.alloc(70_000, 'a'), Buffer.alloc(70_000, 'b'), Buffer.from('end')];
    await s3.send(
      new PutObjectCommand({
        Bucket: 'photos',
        Key: 'streamed.bin',
        Body: Readable.from(chunks),
        ContentLength: 140_003,
      }),
    );
    const headers = sent.slice(before).find((request) => request['x-amz-trailer'] !== undefined);
    expect(headers?.['x-amz-content-sha256']).toBe('STREAMING-UNSIGNED-PAYLOAD-TRAILER');
    expect(headers?.['x-amz-trailer']).toBe('x-amz-checksum-crc32');
    const stored = await s3.send(new GetObjectCommand({ Bucket: 'photos', Key: 'streamed.bin' }));
    // The stored object is the decoded body, not the aws-chunked envelope.
    expect(Buffer.from(await stored.Body!.transformToByteArray())).toEqual(Buffer.concat(chunks));
  });

  it('verifies and answers every trailer checksum the SDK can choose: CRC32C, CRC64NVME, SHA1, SHA256', async () => {
    const body = Buffer.concat([Buffer.alloc(90_000, 'x'), Buffer.from('tail')]);
    for (const algorithm of ['CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const) {
      const before = sent.length;
      const key = `trailer-${algorithm}.bin`;
      const put = await s3.send(
        new PutObjectCommand({
          Bucket: 'photos',
          Key: key,
          Body: Readable.from([body]),
          ContentLength: body.length,
          ChecksumAlgorithm: algorithm,
        }),
      );
      const headers = sent.slice(before).find((request) => request['x-amz-trailer'] !== undefined);
      expect(headers?.['x-amz-trailer'], algorithm).toBe(`x-amz-checksum-${algorithm.toLowerCase()}`);
      // The gateway verified the trailer and answers the checksum the SDK then validates itself.
      expect(put[`Checksum${algorithm}`], algorithm).toMatch(/^[A-Za-z0-9+/]+=*$/);
      const stored = await s3.send(new GetObjectCommand({ Bucket: 'photos', Key: key }));
      expect(Buffer.from(await stored.Body!.transformToByteArray()), algorithm).toEqual(body);
    }
  });

  it('keeps keys exactly as signed: spaces, plus, percent, unicode, slashes', async () => {
    // s3rver cannot route empty segments (`a//b`), so that case is covered by the forwarding tests.
    const keys = ['a b/c+d.txt', '100%/real', 'ünïcödé/日本.txt', 'trailing/', '..a/b..', 'semi;colon=&?'];
    for (const key of keys) {
      await s3.send(new PutObjectCommand({ Bucket: 'photos', Key: key, Body: `body of ${key}` }));
    }
    for (const key of keys) expect(await text(s3, 'photos', key)).toBe(`body of ${key}`);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'photos' }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual(expect.arrayContaining(keys));
  });

  it('deletes several objects in one request', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'archive', Key: 'one', Body: '1' }));
    await s3.send(new PutObjectCommand({ Bucket: 'archive', Key: 'two', Body: '2' }));
    const result = await s3.send(
      new DeleteObjectsCommand({ Bucket: 'archive', Delete: { Objects: [{ Key: 'one' }, { Key: 'two' }] } }),
    );
    expect(result.Deleted?.map((deleted) => deleted.Key).sort()).toEqual(['one', 'two']);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'archive' }));
    expect(listed.KeyCount ?? 0).toBe(0);
  });

  it('refuses more than 1,000 keys in one DeleteObjects, or no Delete document, with MalformedXML, deleting nothing', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'archive', Key: 'kept', Body: 'k' }));
    const malformed = {
      code: 'MalformedXML',
      status: 400,
      message: 'The XML you provided was not well-formed or did not validate against our published schema.',
    };
    for (const count of [1001, 50_000]) {
      const Objects = Array.from({ length: count }, (_, index) => ({
        Key: index === 0 ? 'kept' : `k${index}`,
      }));
      await expectS3Error(
        s3.send(new DeleteObjectsCommand({ Bucket: 'archive', Delete: { Objects } })),
        malformed,
      );
    }
    await expectS3Error(
      s3.send(new DeleteObjectsCommand({ Bucket: 'archive', Delete: { Objects: [] } })),
      malformed,
    );
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'POST',
      baseUrl: gateway.s3Url,
      path: '/archive',
      query: { delete: '' },
      payloadHash: sha256Hex('<NotDelete/>'),
    });
    const notDelete = await sendRaw(gateway.s3Url, {
      method: 'POST',
      target: '/archive?delete=',
      headers,
      body: '<NotDelete/>',
    });
    expect(describeRawError(notDelete)).toMatchObject({ status: 400, code: 'MalformedXML' });
    const thousand = Array.from({ length: 1000 }, (_, index) => ({ Key: `absent-${index}` }));
    const accepted = await s3.send(
      new DeleteObjectsCommand({
        Bucket: 'archive',
        Delete: { Objects: [{ Key: 'gone' }, ...thousand.slice(1)] },
      }),
    );
    expect(accepted.Deleted?.length).toBe(1000);
    expect((await s3.send(new HeadObjectCommand({ Bucket: 'archive', Key: 'kept' }))).ContentLength).toBe(1);
  });

  it('refuses a document declaring an external entity with MalformedXML, changing nothing', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'archive', Key: 'entity-kept', Body: 'k' }));
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: 'archive', Key: 'entity' }),
    );
    const doctype = '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b SYSTEM "file:///etc/passwd">]>';
    const documents: { path: string; query: Record<string, string>; body: string }[] = [
      {
        path: '/archive',
        query: { delete: '' },
        body: `${doctype}<Delete><Object><Key>&b;</Key></Object></Delete>`,
      },
      {
        path: '/archive/entity',
        query: { uploadId: UploadId ?? '' },
        body: `${doctype}<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>&b;</ETag></Part></CompleteMultipartUpload>`,
      },
    ];
    for (const { path, query, body } of documents) {
      const headers = await signedHeaders({
        credential: gateway.credential,
        method: 'POST',
        baseUrl: gateway.s3Url,
        path,
        query,
        payloadHash: sha256Hex(body),
      });
      const answer = await sendRaw(gateway.s3Url, {
        method: 'POST',
        target: `${path}?${new URLSearchParams(query).toString()}`,
        headers,
        body,
      });
      expect(describeRawError(answer), path).toMatchObject({
        status: 400,
        code: 'MalformedXML',
        message: 'The XML you provided was not well-formed or did not validate against our published schema.',
        requestIdMatches: true,
      });
    }
    expect(
      (await s3.send(new HeadObjectCommand({ Bucket: 'archive', Key: 'entity-kept' }))).ContentLength,
    ).toBe(1);
    const parts = await s3.send(new ListPartsCommand({ Bucket: 'archive', Key: 'entity', UploadId }));
    expect(parts.UploadId).toBe(UploadId);
  });

  it('copies an object', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'photos', Key: 'original photo.jpg', Body: 'pixels' }));
    await s3.send(
      new CopyObjectCommand({
        Bucket: 'archive',
        Key: 'copied.jpg',
        CopySource: 'photos/original%20photo.jpg',
      }),
    );
    expect(await text(s3, 'archive', 'copied.jpg')).toBe('pixels');
  });

  it('tags an object', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'photos', Key: 'tagged', Body: 't' }));
    await s3.send(
      new PutObjectTaggingCommand({
        Bucket: 'photos',
        Key: 'tagged',
        Tagging: { TagSet: [{ Key: 'colour', Value: 'blue' }] },
      }),
    );
    const tags = await s3.send(new GetObjectTaggingCommand({ Bucket: 'photos', Key: 'tagged' }));
    expect(tags.TagSet).toEqual([{ Key: 'colour', Value: 'blue' }]);
  });

  it('answers HeadBucket and GetBucketLocation', async () => {
    const head = await s3.send(new HeadBucketCommand({ Bucket: 'photos' }));
    expect(head.$metadata.httpStatusCode).toBe(200);
    const location = await s3.send(new GetBucketLocationCommand({ Bucket: 'photos' }));
    // us-east-1 is an empty LocationConstraint, as S3 answers it.
    expect(location.LocationConstraint ?? '').toBe('');
  });
});

describe('multipart uploads to the embedded store (local mode)', () => {
  const MiB = 1024 * 1024;

  async function uploadParts(key: string, sizes: number[]) {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'photos', Key: key }));
    const parts: { PartNumber: number; ETag: string | undefined }[] = [];
    for (const [index, size] of sizes.entries()) {
      const part = await s3.send(
        new UploadPartCommand({
          Bucket: 'photos',
          Key: key,
          UploadId,
          PartNumber: index + 1,
          Body: Buffer.alloc(size, index + 1),
        }),
      );
      parts.push({ PartNumber: index + 1, ETag: part.ETag });
    }
    const complete = () =>
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: 'photos',
          Key: key,
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    return { parts, complete };
  }

  it('assembles parts of at least 5 MiB (the last any size) into the object, byte for byte', async () => {
    const { complete } = await uploadParts('assembled.bin', [5 * MiB, 3]);
    const done = await complete();
    expect(done.ETag).toMatch(/^"[0-9a-f]{32}(-2)?"$/);
    const object = await s3.send(new GetObjectCommand({ Bucket: 'photos', Key: 'assembled.bin' }));
    const bytes = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    expect(bytes.length).toBe(5 * MiB + 3);
    expect(bytes.subarray(0, 5 * MiB).every((byte) => byte === 1)).toBe(true);
    expect([...bytes.subarray(5 * MiB)]).toEqual([2, 2, 2]);
  });

  it('refuses a non-final part under 5 MiB with EntityTooSmall 400 and creates no object', async () => {
    const { complete } = await uploadParts('too-small.bin', [1024, 5 * MiB]);
    await expectS3Error(complete(), {
      code: 'EntityTooSmall',
      status: 400,
      message: 'Your proposed upload is smaller than the minimum allowed object size.',
    });
    await expectS3Error(s3.send(new HeadObjectCommand({ Bucket: 'photos', Key: 'too-small.bin' })), {
      code: 'NotFound',
      status: 404,
    });
  });

  it('refuses a completion naming a part by an ETag it does not have (InvalidPart)', async () => {
    const { parts, complete } = await uploadParts('wrong-etag.bin', [10]);
    parts[0] = { PartNumber: 1, ETag: '"00000000000000000000000000000000"' };
    await expectS3Error(complete(), { code: 'InvalidPart', status: 400 });
  });
});

describe('the embedded store of local mode', () => {
  it('refuses a key segment too long for a file name with a message that says so, and has no such object', async () => {
    const key = `long/${'x'.repeat(300)}`;
    await expectS3Error(s3.send(new PutObjectCommand({ Bucket: 'photos', Key: key, Body: 'x' })), {
      code: 'KeyTooLongError',
      status: 400,
      message:
        'The embedded store of local mode keeps each object in files named after the segments of its key: a segment (between slashes) this long cannot be stored here. Ceph RGW and S3 take keys up to 1024 bytes.',
    });
    await expectS3Error(s3.send(new GetObjectCommand({ Bucket: 'photos', Key: key })), {
      code: 'NoSuchKey',
      status: 404,
    });
  });

  it('answers a range of an empty object 416 InvalidRange, as S3 does, and the whole of it without one', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'photos', Key: 'empty.txt', Body: '' }));
    for (const range of ['bytes=0-0', 'bytes=0-']) {
      await expectS3Error(
        s3.send(new GetObjectCommand({ Bucket: 'photos', Key: 'empty.txt', Range: range })),
        {
          code: 'InvalidRange',
          status: 416,
          message: 'The requested range is not satisfiable',
        },
      );
    }
    const whole = await s3.send(new GetObjectCommand({ Bucket: 'photos', Key: 'empty.txt' }));
    expect(whole.ContentLength).toBe(0);
    expect(await whole.Body?.transformToString()).toBe('');
  });
});

describe('parts', () => {
  it('refuses a part without a part number, with S3 message, before anything reaches the store', async () => {
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: 'photos', Key: 'no-number.bin' }),
    );
    const credential = await createCredential(gateway, {
      scope: { buckets: ['photos'], level: 'read-write' },
    });
    const path = '/photos/no-number.bin';
    const headers = await signedHeaders({
      credential,
      method: 'PUT',
      baseUrl: gateway.s3Url,
      path,
      query: { uploadId: UploadId ?? '' },
      payloadHash: 'UNSIGNED-PAYLOAD',
    });
    const answer = await sendRaw(gateway.s3Url, {
      method: 'PUT',
      target: `${path}?uploadId=${encodeURIComponent(UploadId ?? '')}`,
      headers,
      body: 'part',
    });
    expect(describeRawError(answer)).toEqual({
      status: 400,
      code: 'InvalidArgument',
      message: 'Part number must be an integer between 1 and 10000, inclusive',
      requestIdMatches: true,
    });
  });

  it('answers a part of an upload nobody started with NoSuchUpload, as S3 does', async () => {
    await expectS3Error(
      s3.send(
        new UploadPartCommand({
          Bucket: 'photos',
          Key: 'orphan.bin',
          UploadId: 'never-started',
          PartNumber: 1,
          Body: 'x',
        }),
      ),
      { code: 'NoSuchUpload', status: 404 },
    );
  });
});

describe('ListBuckets from the store', () => {
  it("lists the organisation's buckets, never another organisation's", async () => {
    const listed = await s3.send(new ListBucketsCommand({}));
    const names = listed.Buckets?.map((bucket) => bucket.Name);
    expect(names).toEqual(['archive', 'photos']);
    const organisation = await defaultOrganisation(gateway);
    expect(listed.Owner).toEqual({ ID: organisation.id, DisplayName: organisation.name });
  });

  it('lists only the buckets a scoped credential covers', async () => {
    const scoped = await createCredential(gateway, { scope: { buckets: ['archive'], level: 'read-only' } });
    const listed = await pathStyleClient(gateway, scoped).send(new ListBucketsCommand({}));
    expect(listed.Buckets?.map((bucket) => bucket.Name)).toEqual(['archive']);
  });

  it('lists only the buckets whose names start with the prefix asked for', async () => {
    const listed = await s3.send(new ListBucketsCommand({ Prefix: 'ph' }));
    expect(listed.Buckets?.map((bucket) => bucket.Name)).toEqual(['photos']);
  });
});

describe('virtual-hosted addressing', () => {
  it('reaches <bucket>.<domain> with the same objects as path-style', async () => {
    const virtual = virtualHostedClient(gateway);
    await virtual.send(new PutObjectCommand({ Bucket: 'photos', Key: 'virtual/host.txt', Body: 'vhost' }));
    expect(await text(s3, 'photos', 'virtual/host.txt')).toBe('vhost');
    expect(await text(virtual, 'photos', 'virtual/host.txt')).toBe('vhost');
    const listed = await virtual.send(new ListObjectsV2Command({ Bucket: 'photos', Prefix: 'virtual/' }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual(['virtual/host.txt']);
    const entry = gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>).at(-1);
    expect(entry).toMatchObject({ operation: 'ListObjectsV2', bucket: 'photos', status: 200 });
  });
});

describe('bucket names with dots (service-spec §4: they need path-style)', () => {
  it('work path-style through the SDK', async () => {
    await createBucket(gateway, 'my.dotted.bucket');
    await s3.send(new PutObjectCommand({ Bucket: 'my.dotted.bucket', Key: 'k.txt', Body: 'dots' }));
    expect(await text(s3, 'my.dotted.bucket', 'k.txt')).toBe('dots');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'my.dotted.bucket' }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual(['k.txt']);
  });
});

describe('presigned URLs', () => {
  it('GET works through a presigned URL and without any header signature', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'photos', Key: 'shared.txt', Body: 'shared secret' }));
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'photos', Key: 'shared.txt' }), {
      expiresIn: 600,
    });
    const response = await fetch(url, { headers: { 'user-agent': 'presign-test' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('shared secret');
  });

  it('PUT works through a presigned URL', async () => {
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: 'photos', Key: 'uploaded.txt' }), {
      expiresIn: 600,
    });
    const response = await fetch(url, {
      method: 'PUT',
      body: 'uploaded by url',
      headers: { 'user-agent': 'curl/8' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-amz-request-id')).toMatch(/^[0-9A-F]{16}$/);
    expect(await text(s3, 'photos', 'uploaded.txt')).toBe('uploaded by url');
  });
});

describe('object ACLs (decisions.md)', () => {
  it("answers the owner's full control and accepts the same grant back (what s3cmd cp does)", async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'photos', Key: 'acl.txt', Body: 'a' }));
    const acl = await s3.send(new GetObjectAclCommand({ Bucket: 'photos', Key: 'acl.txt' }));
    const organisation = await defaultOrganisation(gateway);
    expect(acl.Owner?.ID).toBe(organisation.id);
    expect(acl.Grants).toEqual([
      {
        Grantee: { Type: 'CanonicalUser', ID: organisation.id, DisplayName: organisation.name },
        Permission: 'FULL_CONTROL',
      },
    ]);
    const written = await s3.send(
      new PutObjectAclCommand({
        Bucket: 'photos',
        Key: 'acl.txt',
        AccessControlPolicy: { Owner: acl.Owner, Grants: acl.Grants },
      }),
    );
    expect(written.$metadata.httpStatusCode).toBe(200);
    const canned = await s3.send(
      new PutObjectAclCommand({ Bucket: 'photos', Key: 'acl.txt', ACL: 'private' }),
    );
    expect(canned.$metadata.httpStatusCode).toBe(200);
  });

  it('refuses any other grant with 501 NotImplemented', async () => {
    await expectS3Error(
      s3.send(new PutObjectAclCommand({ Bucket: 'photos', Key: 'acl.txt', ACL: 'public-read' })),
      {
        code: 'NotImplemented',
        status: 501,
        message: 'Only a private (owner full control) ACL is implemented.',
      },
    );
    await expectS3Error(
      s3.send(
        new PutObjectAclCommand({
          Bucket: 'photos',
          Key: 'acl.txt',
          AccessControlPolicy: {
            Owner: { ID: 'someone' },
            Grants: [
              {
                Grantee: { Type: 'Group', URI: 'http://acs.amazonaws.com/groups/global/AllUsers' },
                Permission: 'READ',
              },
            ],
          },
        }),
      ),
      { code: 'NotImplemented', status: 501 },
    );
  });

  it('answers NoSuchKey for the ACL of a missing object', async () => {
    await expectS3Error(s3.send(new GetObjectAclCommand({ Bucket: 'photos', Key: 'missing' })), {
      code: 'NoSuchKey',
      status: 404,
    });
  });
});

describe('accounting', () => {
  it('records usage, metrics, the credential last use and one access log line per request', async () => {
    const { store } = gateway.gateway.context;
    /** The bytes counted for the bucket so far, in every window. */
    const usage = async () => {
      await store.usage.flush();
      const [row] = await store.db.sql<{ bytes_in: string | null; bytes_out: string | null }[]>`
        SELECT sum(bytes_in) AS bytes_in, sum(bytes_out) AS bytes_out FROM usage_counters
        WHERE bucket = 'archive'`;
      return { bytesIn: Number(row?.bytes_in ?? 0), bytesOut: Number(row?.bytes_out ?? 0) };
    };
    const series = [
      'gateway_s3_requests_total{operation="PutObject",status="200",code=""}',
      'gateway_s3_bytes_in_total{operation="PutObject"}',
      'gateway_organisation_requests_total{organisation="default"}',
      'gateway_backend_request_duration_seconds_count{operation="GetObject"}',
    ] as const;
    const usageBefore = await usage();
    const metricsBefore = await scrapeMetrics(gateway.metricsUrl);

    await s3.send(new PutObjectCommand({ Bucket: 'archive', Key: 'metered', Body: 'x'.repeat(1000) }));
    await text(s3, 'archive', 'metered');

    // The upload's body in, the download's body out: 1,000 bytes each way.
    const usageAfter = await usage();
    expect({
      bytesIn: usageAfter.bytesIn - usageBefore.bytesIn,
      bytesOut: usageAfter.bytesOut - usageBefore.bytesOut,
    }).toEqual({ bytesIn: 1000, bytesOut: 1000 });

    const credential = await store.credentials.find(gateway.credential.accessKeyId);
    expect(credential?.lastUsedAt).toBeInstanceOf(Date);

    expect(metricDeltas(metricsBefore, await scrapeMetrics(gateway.metricsUrl), series)).toEqual({
      [series[0]]: 1,
      [series[1]]: 1000,
      // The PUT and the GET.
      [series[2]]: 2,
      [series[3]]: 1,
    });

    const lines = gateway.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 's3 request' && line.target === '/archive/metered?x-id=PutObject');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      operation: 'PutObject',
      status: 200,
      accessKeyId: gateway.credential.accessKeyId,
    });
  });
});

describe('CompleteMultipartUpload answered like Ceph RGW 16.2 (an empty ETag)', () => {
  let backend: RecordingBackend;
  let rgw: TestGateway;
  let client: S3Client;

  beforeAll(async () => {
    backend = await startRecordingBackend();
    rgw = await startTestGateway(backend.env);
    await createBucket(rgw, 'assembled');
    client = pathStyleClient(rgw);
  });
  afterAll(async () => {
    await rgw?.stop();
    await backend?.stop();
  });

  /** An upload of one part, ready to complete: the completion's body and target. */
  async function upload(key: string) {
    const target = { Bucket: 'assembled', Key: key };
    const { UploadId } = await client.send(new CreateMultipartUploadCommand(target));
    const part = await client.send(
      new UploadPartCommand({ ...target, UploadId, PartNumber: 1, Body: `the parts of ${key}` }),
    );
    const completion = new CompleteMultipartUploadCommand({
      ...target,
      UploadId,
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
    });
    return { target, uploadId: UploadId as string, completion };
  }

  const backendHeads = (key: string) =>
    backend.requests.filter((request) => request.method === 'HEAD' && request.target === `/assembled/${key}`);

  it("fills in the object's ETag from a re-signed HEAD: the SDK sees HeadObject's ETag", async () => {
    backend.rewriteCompletion = (document) => [rgwEmptyEtag(document)];
    const { target, completion } = await upload('filled.bin');
    const completed = await client.send(completion);
    expect(backendHeads('filled.bin')).toMatchObject([{ signatureValid: true, status: 200 }]);
    const head = await client.send(new HeadObjectCommand(target));
    expect(completed.ETag).toMatch(/^"[0-9a-f]{32}(-\d+)?"$/);
    expect(completed.ETag).toBe(head.ETag);
    expect(completed.$metadata.requestId).toMatch(/^[0-9A-F]{16}$/);
    const logged = rgw.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 's3 request' && line.requestId === completed.$metadata.requestId);
    expect(logged).toMatchObject({ operation: 'CompleteMultipartUpload', status: 200, code: '' });
    expect(logged?.bytesOut).toBeGreaterThan(0);
  });

  it('passes the whitespace a store sends while it works on at once, then the filled document', async () => {
    backend.rewriteCompletion = (document) => ['\n', ' \n', rgwEmptyEtag(document)];
    const { target, uploadId, completion } = await upload('kept-alive.bin');
    const body = completion.input
      .MultipartUpload!.Parts!.map(
        (part) => `<Part><PartNumber>${part.PartNumber}</PartNumber><ETag>${part.ETag}</ETag></Part>`,
      )
      .join('');
    const xml = `<CompleteMultipartUpload>${body}</CompleteMultipartUpload>`;
    const query = { uploadId };
    const headers = await signedHeaders({
      credential: rgw.credential,
      method: 'POST',
      baseUrl: rgw.s3Url,
      path: '/assembled/kept-alive.bin',
      query,
      payloadHash: sha256Hex(xml),
    });
    const answer = await sendRaw(rgw.s3Url, {
      method: 'POST',
      target: `/assembled/kept-alive.bin${queryString(query)}`,
      headers,
      body: xml,
    });
    const etag = (await client.send(new HeadObjectCommand(target))).ETag ?? '';
    expect(answer.status).toBe(200);
    expect(answer.headers['transfer-encoding']).toBe('chunked');
    expect(answer.body.startsWith('\n \n<?xml')).toBe(true);
    expect(answer.body).toContain(`<ETag>${etag.replaceAll('"', '&quot;')}</ETag>`);
  });

  it('passes a 200 carrying an <Error> document on as it came: the SDK reports the error', async () => {
    const error =
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message><RequestId>tx-backend</RequestId></Error>';
    backend.rewriteCompletion = () => [' ', error];
    const { completion } = await upload('failed-late.bin');
    // The SDK reads the 200's body, finds the error and reports it (with a status of its own making).
    const failure = await client.send(completion).catch((caught: unknown) => caught);
    expect(failure).toMatchObject({
      name: 'InternalError',
      message: 'We encountered an internal error. Please try again.',
    });
    expect(backendHeads('failed-late.bin')).toEqual([]);
    const logged = rgw.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find(
        (line) =>
          line.msg === 's3 request' && line.requestId === (failure as S3ServiceException).$metadata.requestId,
      );
    expect(logged).toMatchObject({ status: 200, code: 'InternalError', bytesOut: 1 + error.length });
  });

  it('leaves an ETag the store did send alone, without a HEAD', async () => {
    backend.rewriteCompletion = null;
    const { target, completion } = await upload('present.bin');
    const completed = await client.send(completion);
    expect(backendHeads('present.bin')).toEqual([]);
    expect(completed.ETag).toBe((await client.send(new HeadObjectCommand(target))).ETag);
  });
});

describe('CompleteMultipartUpload to an object store that stops answering', () => {
  let behaviour: 'hang' | 'reset' | 'stall' = 'hang';
  let backend: http.Server;
  let stranded: TestGateway;

  beforeAll(async () => {
    // ListParts is answered (one part), the completion is not.
    backend = http.createServer((request, response) => {
      request.resume();
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.end(
          '<ListPartsResult><IsTruncated>false</IsTruncated><Part><PartNumber>1</PartNumber><Size>4</Size></Part></ListPartsResult>',
        );
      } else if (behaviour === 'reset') request.socket.destroy();
      else if (behaviour === 'stall') {
        response.writeHead(200, { 'content-type': 'application/xml' });
        response.write(' \n');
      }
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    stranded = await startTestGateway({
      GATEWAY_BACKEND_URL: `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
      GATEWAY_BACKEND_ACCESS_KEY_ID: 'backend-key',
      GATEWAY_BACKEND_SECRET_ACCESS_KEY: 'backend-secret',
      GATEWAY_BACKEND_TIMEOUT_SECONDS: '1',
    });
    await createBucket(stranded, 'stranded', { inBackend: false });
  });
  afterAll(async () => {
    await stranded?.stop();
    backend.closeAllConnections();
    await new Promise((resolve) => backend.close(resolve));
  });

  it('is 503 ServiceUnavailable when it times out or resets, counted by kind', async () => {
    const complete = () =>
      pathStyleClient(stranded).send(
        new CompleteMultipartUploadCommand({
          Bucket: 'stranded',
          Key: 'k',
          UploadId: 'u',
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"x"' }] },
        }),
      );
    for (const kind of ['hang', 'reset'] as const) {
      behaviour = kind;
      await expectS3Error(complete(), { code: 'ServiceUnavailable', status: 503 });
    }
    const metrics = await (await fetch(`${stranded.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/gateway_backend_errors_total\{kind="timeout"\} 1\b/);
    expect(metrics).toMatch(/gateway_backend_errors_total\{kind="reset"\} 1\b/);
  });

  it('cuts the answer short when it stalls after sending whitespace (the 200 head is out)', async () => {
    behaviour = 'stall';
    const xml =
      '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"x"</ETag></Part></CompleteMultipartUpload>';
    const query = { uploadId: 'u' };
    const headers = await signedHeaders({
      credential: stranded.credential,
      method: 'POST',
      baseUrl: stranded.s3Url,
      path: '/stranded/k',
      query,
      headers: { 'content-length': String(xml.length) },
      payloadHash: sha256Hex(xml),
    });
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    const answer = await sendOnSocket(
      stranded.s3Url,
      `POST /stranded/k${queryString(query)} HTTP/1.1\r\n${head.join('')}\r\n${xml}`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain('Transfer-Encoding: chunked');
    expect(answer).toMatch(/\r\n\r\n2\r\n \n\r\n$/);
  });
});
