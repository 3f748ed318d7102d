/**
 * Prefix-scoped credentials (issue 15): a key limited to `users/42/` of a bucket reads, writes,
 * lists, copies from, deletes and presigns only under that prefix; everything else is AccessDenied
 * "Access to this bucket is denied." and nothing outside the prefix is touched.
 */
import {
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketAclCommand,
  GetBucketCorsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsCommand,
  ListObjectVersionsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, type ControlClient } from '../../support/control-plane.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import {
  describeRawError,
  queryString,
  sendRaw,
  sha256Hex,
  signedHeaders,
} from '../../support/s3/raw-requests.js';

const DENIED = { code: 'AccessDenied', status: 403, message: 'Access to this bucket is denied.' };

let gateway: TestGateway;
let control: ControlClient;
let owner: S3Client;
let scoped: S3Client;
let scopedKeyId: string;
let scopedKey: { accessKeyId: string; secret: string };

beforeAll(async () => {
  gateway = await startTestGateway();
  control = await login(gateway.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  await control.createBucket('photos');
  await control.createBucket('shared');
  owner = pathStyleClient(gateway);
  for (const Key of ['users/42/a.jpg', 'users/42/deep/b.jpg', 'users/43/c.jpg', 'users/420/d.jpg', 'top.txt'])
    await owner.send(new PutObjectCommand({ Bucket: 'photos', Key, Body: Key }));
  await owner.send(new PutObjectCommand({ Bucket: 'shared', Key: 'any.txt', Body: 'any' }));
  const key = await control.createCredential('user 42', {
    buckets: ['photos', 'shared'],
    prefixes: { photos: ['users/42/'] },
    level: 'read-write',
  });
  scopedKeyId = key.accessKeyId;
  scopedKey = key;
  scoped = pathStyleClient(gateway, key);
});
afterAll(async () => {
  await gateway?.stop();
});

async function exists(Bucket: string, Key: string): Promise<boolean> {
  return owner.send(new HeadObjectCommand({ Bucket, Key })).then(
    () => true,
    () => false,
  );
}

describe('a credential limited to users/42/ of photos', () => {
  it('reads and writes under its prefix', async () => {
    const object = await scoped.send(new GetObjectCommand({ Bucket: 'photos', Key: 'users/42/a.jpg' }));
    expect(await object.Body?.transformToString()).toBe('users/42/a.jpg');
    await scoped.send(new PutObjectCommand({ Bucket: 'photos', Key: 'users/42/new.jpg', Body: 'new' }));
    expect(await exists('photos', 'users/42/new.jpg')).toBe(true);
  });

  it('cannot read, write or delete outside it, a longer sibling prefix included', async () => {
    for (const Key of ['users/43/c.jpg', 'users/420/d.jpg', 'top.txt', 'users/42']) {
      await expectS3Error(scoped.send(new GetObjectCommand({ Bucket: 'photos', Key })), DENIED);
    }
    await expectS3Error(
      scoped.send(new PutObjectCommand({ Bucket: 'photos', Key: 'users/43/planted.jpg', Body: 'x' })),
      DENIED,
    );
    await expectS3Error(
      scoped.send(new DeleteObjectCommand({ Bucket: 'photos', Key: 'users/43/c.jpg' })),
      DENIED,
    );
    expect(await exists('photos', 'users/43/planted.jpg')).toBe(false);
    expect(await exists('photos', 'users/43/c.jpg')).toBe(true);
  });

  it('lists only with a prefix inside its own, and sees the bucket exists', async () => {
    const listed = await scoped.send(new ListObjectsV2Command({ Bucket: 'photos', Prefix: 'users/42/' }));
    expect(listed.Contents?.map((object) => object.Key).sort()).toEqual(
      expect.arrayContaining(['users/42/a.jpg', 'users/42/deep/b.jpg']),
    );
    expect(listed.Contents?.every((object) => object.Key?.startsWith('users/42/'))).toBe(true);
    await scoped.send(new ListObjectsV2Command({ Bucket: 'photos', Prefix: 'users/42/deep/' }));
    for (const Prefix of [undefined, '', 'users/', 'users/4', 'users/43/']) {
      await expectS3Error(scoped.send(new ListObjectsV2Command({ Bucket: 'photos', Prefix })), DENIED);
    }
    await scoped.send(new HeadBucketCommand({ Bucket: 'photos' }));
  });

  it('lists versions, multipart uploads and ListObjects v1 only inside its prefix', async () => {
    await scoped.send(new ListObjectsCommand({ Bucket: 'photos', Prefix: 'users/42/' }));
    await scoped.send(new ListMultipartUploadsCommand({ Bucket: 'photos', Prefix: 'users/42/' }));
    for (const Prefix of [undefined, 'users/', 'users/43/']) {
      await expectS3Error(scoped.send(new ListObjectsCommand({ Bucket: 'photos', Prefix })), DENIED);
      await expectS3Error(scoped.send(new ListObjectVersionsCommand({ Bucket: 'photos', Prefix })), DENIED);
      await expectS3Error(scoped.send(new ListMultipartUploadsCommand({ Bucket: 'photos', Prefix })), DENIED);
    }
  });

  it('cannot widen a listing by repeating its prefix parameter', async () => {
    // The gateway would read the first prefix and the store the last (Ceph RGW does).
    const query = { 'list-type': '2', prefix: ['users/42/', ''] };
    const response = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: `/photos${queryString(query)}`,
      headers: await signedHeaders({
        credential: scopedKey,
        method: 'GET',
        baseUrl: gateway.s3Url,
        path: '/photos',
        query,
        payloadHash: sha256Hex(''),
      }),
    });
    expect(describeRawError(response)).toEqual({
      status: 400,
      code: 'InvalidArgument',
      message: 'The query parameter prefix is given more than once; give each query parameter once.',
      requestIdMatches: true,
    });
    expect(response.body).toContain('<ArgumentName>prefix</ArgumentName>');
    expect(response.body).not.toContain('top.txt');
  });

  it('may not use bucket operations beyond listings, HeadBucket and location', async () => {
    await expectS3Error(scoped.send(new GetBucketAclCommand({ Bucket: 'photos' })), DENIED);
    await expectS3Error(scoped.send(new GetBucketCorsCommand({ Bucket: 'photos' })), DENIED);
  });

  it('copies a part only from keys under its prefix', async () => {
    const upload = await scoped.send(
      new CreateMultipartUploadCommand({ Bucket: 'photos', Key: 'users/42/assembled.jpg' }),
    );
    const part = (CopySource: string) =>
      scoped.send(
        new UploadPartCopyCommand({
          Bucket: 'photos',
          Key: 'users/42/assembled.jpg',
          UploadId: upload.UploadId,
          PartNumber: 1,
          CopySource,
        }),
      );
    await expectS3Error(part('photos/users/43/c.jpg'), DENIED);
    await expectS3Error(part('photos/top.txt'), DENIED);
    // The embedded store has no UploadPartCopy: the copy inside the prefix is the e2e test's.
  });

  it('uploads a form it signed itself only under its prefix', async () => {
    const post = async (Key: string) => {
      const form = await createPresignedPost(scoped as never, { Bucket: 'photos', Key });
      const data = new FormData();
      for (const [name, value] of Object.entries(form.fields)) data.append(name, value);
      data.append('file', new Blob(['form']), 'form.txt');
      return fetch(form.url, {
        method: 'POST',
        body: data,
        headers: { 'user-agent': 'Mozilla/5.0 (prefix test)' },
      });
    };
    const refused = await post('users/43/form.txt');
    expect({ status: refused.status, body: await refused.text() }).toMatchObject({
      status: 403,
      body: expect.stringContaining(
        '<Code>AccessDenied</Code><Message>Access to this bucket is denied.</Message>',
      ),
    });
    expect(await exists('photos', 'users/43/form.txt')).toBe(false);
    expect((await post('users/42/form.txt')).status).toBe(204);
    expect(await exists('photos', 'users/42/form.txt')).toBe(true);
  });

  it('copies only from keys under its prefix', async () => {
    await scoped.send(
      new CopyObjectCommand({
        Bucket: 'photos',
        Key: 'users/42/copy.jpg',
        CopySource: 'photos/users/42/a.jpg',
      }),
    );
    expect(await exists('photos', 'users/42/copy.jpg')).toBe(true);
    await expectS3Error(
      scoped.send(
        new CopyObjectCommand({
          Bucket: 'photos',
          Key: 'users/42/stolen.jpg',
          CopySource: 'photos/users/43/c.jpg',
        }),
      ),
      DENIED,
    );
    expect(await exists('photos', 'users/42/stolen.jpg')).toBe(false);
  });

  it('deletes in bulk only when every key is under its prefix; a key padded with spaces is not', async () => {
    await expectS3Error(
      scoped.send(
        new DeleteObjectsCommand({
          Bucket: 'photos',
          Delete: { Objects: [{ Key: 'users/42/copy.jpg' }, { Key: 'users/43/c.jpg' }] },
        }),
      ),
      DENIED,
    );
    await expectS3Error(
      scoped.send(
        new DeleteObjectsCommand({ Bucket: 'photos', Delete: { Objects: [{ Key: ' users/42/a.jpg' }] } }),
      ),
      DENIED,
    );
    expect(await exists('photos', 'users/43/c.jpg')).toBe(true);
    expect(await exists('photos', 'users/42/copy.jpg')).toBe(true);
    await scoped.send(
      new DeleteObjectsCommand({ Bucket: 'photos', Delete: { Objects: [{ Key: 'users/42/copy.jpg' }] } }),
    );
    expect(await exists('photos', 'users/42/copy.jpg')).toBe(false);
  });

  it('reaches a bucket it has no prefixes for whole', async () => {
    const object = await scoped.send(new GetObjectCommand({ Bucket: 'shared', Key: 'any.txt' }));
    expect(await object.Body?.transformToString()).toBe('any');
  });

  it('is presigned by the control plane only inside its prefix', async () => {
    const inside = await control.presign('photos', {
      key: 'users/42/a.jpg',
      method: 'GET',
      accessKeyId: scopedKeyId,
    });
    expect((await fetch(inside.url)).status).toBe(200);
    const outside = await control.call(
      'POST',
      '/v1/buckets/photos/presign',
      { key: 'users/43/c.jpg', method: 'GET', accessKeyId: scopedKeyId },
      403,
    );
    expect(outside).toMatchObject({
      code: 'credential_scope_insufficient',
      detail: `The credential ${scopedKeyId} reaches only keys under "users/42/" in bucket "photos".`,
    });
    await control.call(
      'POST',
      '/v1/buckets/photos/presign',
      { key: 'users/${filename}', method: 'POST', accessKeyId: scopedKeyId },
      403,
    );
    const form = await control.presign('photos', {
      key: 'users/42/${filename}',
      method: 'POST',
      accessKeyId: scopedKeyId,
    });
    expect(form.fields?.key).toBe('users/42/${filename}');
  });

  it('has its prefixes validated and shown back by the control plane', async () => {
    const shown = await control.call('GET', `/v1/credentials/${scopedKeyId}`, undefined, 200);
    expect(shown.scope).toEqual({
      buckets: ['photos', 'shared'],
      level: 'read-write',
      prefixes: { photos: ['users/42/'] },
    });
    const notInScope = await control.call(
      'POST',
      '/v1/credentials',
      { name: 'x', scope: { buckets: ['shared'], prefixes: { photos: ['a/'] }, level: 'read-only' } },
      400,
    );
    expect(JSON.stringify(notInScope)).toContain('scope.prefixes.photos');
    await control.call(
      'POST',
      '/v1/credentials',
      { name: 'x', scope: { buckets: ['photos'], prefixes: { photos: [''] }, level: 'read-only' } },
      400,
    );
  });
});
