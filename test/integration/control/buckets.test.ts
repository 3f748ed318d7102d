import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { addMember, addOrganisation, ControlClient, login } from '../../support/control-plane.js';
import { expectFullPagination } from '../../support/pagination.js';
import { expectInvalidFields, expectProblem } from '../../support/problems.js';

let gw: TestGateway;
let owner: ControlClient;
let member: ControlClient;
let backendClient: S3Client;

async function putObject(bucket: string, key: string, body = 'content'): Promise<void> {
  await backendClient.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
}

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  owner = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
  member = (await addMember(owner, 'member')).client;
  const { backend } = gw.gateway.context;
  backendClient = new S3Client({
    endpoint: backend.endpoint.toString(),
    region: backend.region,
    credentials: backend.credentials,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
});
afterAll(async () => {
  backendClient?.destroy();
  await gw?.stop();
});

describe('bucket lifecycle', () => {
  it('creates a bucket on the backend and in records', async () => {
    const created = await owner.post('/v1/buckets', { name: 'lifecycle-one' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      name: 'lifecycle-one',
      public: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      cors: { ruleCount: 0, allowedOrigins: [] },
      quota: { maxBytes: null, maxObjects: null },
    });
    // It exists on the object store: objects can be written to it.
    await putObject('lifecycle-one', 'hello.txt');
    const record = await gw.gateway.context.store.buckets.find('lifecycle-one');
    expect(record).toMatchObject({
      public: false,
      organisationId: (await owner.get('/v1/organisation')).body.id,
    });
    expect((await owner.post('/v1/buckets', { name: 'lifecycle-public', public: true })).body.public).toBe(
      true,
    );
  });

  it('refuses names that are not DNS-compatible S3 bucket names', async () => {
    for (const name of [
      'ab',
      'a'.repeat(64),
      'UpperCase',
      'under_score',
      '-leading-hyphen',
      'trailing-hyphen-',
      'double..dot',
      '192.168.1.1',
      'xn--punycode',
      'name-s3alias',
      'dot.-hyphen',
    ]) {
      const response = await owner.post('/v1/buckets', { name });
      expect(expectInvalidFields(response, 'name').errors[0].message, name).toEqual(expect.any(String));
    }
    expectInvalidFields(await owner.post('/v1/buckets', {}), 'name');
    expectInvalidFields(await owner.post('/v1/buckets', { name: 'valid-name', public: 'yes' }), 'public');
    expect((await owner.post('/v1/buckets', { name: 'with.dots.and-hyphens1' })).status).toBe(201);
  });

  it('treats names as global: taken here or in another organisation is a conflict', async () => {
    await owner.post('/v1/buckets', { name: 'globally-unique' });
    expectProblem(await owner.post('/v1/buckets', { name: 'globally-unique' }), 409, 'bucket_name_taken');
    const other = await addOrganisation(owner, 'bucket-rival');
    expectProblem(
      await other.owner.post('/v1/buckets', { name: 'globally-unique' }),
      409,
      'bucket_name_taken',
    );
    // A bucket that exists on the backend without a record is taken too.
    await backendClient.send(new PutObjectCommand({ Bucket: 'lifecycle-one', Key: 'x', Body: 'x' }));
    const { backend } = gw.gateway.context;
    await backend.createBucket('backend-only');
    expectProblem(await owner.post('/v1/buckets', { name: 'backend-only' }), 409, 'bucket_name_taken');
  });

  it('lists the organisation\u2019s buckets to members, paginated', async () => {
    await owner.post('/v1/buckets', { name: 'listed-a' });
    await owner.post('/v1/buckets', { name: 'listed-b' });
    const all = await member.get('/v1/buckets?limit=1000');
    expect(all.status).toBe(200);
    expect(all.body.items.map((bucket: { name: string }) => bucket.name)).toEqual(
      expect.arrayContaining(['listed-a', 'listed-b']),
    );
    expect(all.body.items[0]).toEqual({
      name: expect.any(String),
      public: expect.any(Boolean),
      createdAt: expect.any(String),
    });
    // By name, page after page.
    const names = await expectFullPagination(owner, '/v1/buckets', { limit: 2, key: 'name' });
    expect(names).toEqual([...names].sort());
  });

  it('shows one bucket to members', async () => {
    await owner.post('/v1/buckets', { name: 'shown-one' });
    expect((await member.get('/v1/buckets/shown-one')).body).toMatchObject({
      name: 'shown-one',
      public: false,
    });
  });

  it('makes a bucket public, and the storage endpoint\u2019s cache follows at once', async () => {
    await owner.post('/v1/buckets', { name: 'made-public' });
    const patched = await owner.patch('/v1/buckets/made-public', { public: true });
    expect(patched.status).toBe(200);
    expect(patched.body.public).toBe(true);
    expect((await gw.gateway.context.store.cache.bucket('made-public'))?.bucket.public).toBe(true);
  });

  it('names a change without a setting', async () => {
    await owner.post('/v1/buckets', { name: 'unchanged' });
    expectInvalidFields(await owner.patch('/v1/buckets/unchanged', {}), 'public');
  });

  it('lets only owners and admins create, change and delete buckets', async () => {
    await owner.post('/v1/buckets', { name: 'owners-only' });
    expectProblem(await member.post('/v1/buckets', { name: 'members-cannot' }), 403, 'forbidden');
    expectProblem(await member.patch('/v1/buckets/owners-only', { public: true }), 403, 'forbidden');
    expectProblem(await member.delete('/v1/buckets/owners-only'), 403, 'forbidden');
  });

  it('answers bucket_not_found for a bucket that does not exist, or a name no bucket can have', async () => {
    expectProblem(await owner.get('/v1/buckets/no-such-bucket'), 404, 'bucket_not_found');
    expectProblem(await owner.get('/v1/buckets/Not_A_Name'), 404, 'bucket_not_found');
  });

  it('names a bad limit or cursor on the list', async () => {
    for (const limit of ['0', '1001', '-5', '2.5', 'all']) {
      expectInvalidFields(await owner.get(`/v1/buckets?limit=${limit}`), 'limit');
    }
    // Not base64url, and base64url of something that is no bucket name.
    for (const cursor of ['bad.cursor!', Buffer.from('Not_A_Bucket').toString('base64url')]) {
      expectInvalidFields(await owner.get(`/v1/buckets?cursor=${cursor}`), 'cursor');
    }
  });

  it('hides other organisations\u2019 buckets', async () => {
    const other = await addOrganisation(owner, 'bucket-stranger');
    expect((await other.owner.post('/v1/buckets', { name: 'stranger-bucket' })).status).toBe(201);
    const theirRules = { rules: [{ allowedOrigins: ['https://stranger.example'], allowedMethods: ['GET'] }] };
    expect((await other.owner.put('/v1/buckets/stranger-bucket/cors', theirRules)).status).toBe(200);
    await putObject('stranger-bucket', 'theirs.txt');

    expectProblem(await owner.get('/v1/buckets/stranger-bucket'), 404, 'bucket_not_found');
    expectProblem(
      await owner.patch('/v1/buckets/stranger-bucket', { public: true }),
      404,
      'bucket_not_found',
    );
    expectProblem(await owner.delete('/v1/buckets/stranger-bucket'), 404, 'bucket_not_found');
    expectProblem(await owner.get('/v1/buckets/stranger-bucket/cors'), 404, 'bucket_not_found');
    expectProblem(
      await owner.put('/v1/buckets/stranger-bucket/cors', {
        rules: [{ allowedOrigins: ['*'], allowedMethods: ['GET'] }],
      }),
      404,
      'bucket_not_found',
    );
    expectProblem(await owner.delete('/v1/buckets/stranger-bucket/cors'), 404, 'bucket_not_found');
    expectProblem(await owner.get('/v1/buckets/stranger-bucket/objects'), 404, 'bucket_not_found');
    expectProblem(
      await owner.post('/v1/buckets/stranger-bucket/objects/delete', { keys: ['theirs.txt'] }),
      404,
      'bucket_not_found',
    );
    expect((await owner.get('/v1/buckets?limit=1000')).text).not.toContain('stranger-bucket');

    // Their bucket, its rules and its object are as they were.
    expect((await other.owner.get('/v1/buckets/stranger-bucket')).body.public).toBe(false);
    expect((await other.owner.get('/v1/buckets/stranger-bucket/cors')).body).toEqual(theirRules);
    const objects = await other.owner.get('/v1/buckets/stranger-bucket/objects');
    expect(objects.body.objects.map((object: { key: string }) => object.key)).toEqual(['theirs.txt']);
  });

  it('records bucket and CORS writes in the audit log', async () => {
    await owner.post('/v1/buckets', { name: 'audited-bucket' });
    await owner.patch('/v1/buckets/audited-bucket', { public: true });
    await owner.put('/v1/buckets/audited-bucket/cors', {
      rules: [{ allowedOrigins: ['*'], allowedMethods: ['GET'] }],
    });
    await owner.delete('/v1/buckets/audited-bucket/cors');
    await owner.delete('/v1/buckets/audited-bucket');
    const log = await owner.get('/v1/organisation/audit-log?limit=5');
    expect(
      log.body.items.map((entry: { action: string; target: string }) => [entry.action, entry.target]),
    ).toEqual([
      ['bucket.delete', 'audited-bucket'],
      ['bucket.cors_delete', 'audited-bucket'],
      ['bucket.cors_put', 'audited-bucket'],
      ['bucket.update', 'audited-bucket'],
      ['bucket.create', 'audited-bucket'],
    ]);
  });

  it('deletes only an empty bucket', async () => {
    await owner.post('/v1/buckets', { name: 'to-delete' });
    await putObject('to-delete', 'blocking.txt');
    expectProblem(await owner.delete('/v1/buckets/to-delete'), 409, 'bucket_not_empty');
    expect((await owner.get('/v1/buckets/to-delete')).status).toBe(200);
    await owner.post('/v1/buckets/to-delete/objects/delete', { keys: ['blocking.txt'] });
    expect((await owner.delete('/v1/buckets/to-delete')).status).toBe(204);
    expectProblem(await owner.get('/v1/buckets/to-delete'), 404, 'bucket_not_found');
    expect(await gw.gateway.context.store.buckets.find('to-delete')).toBeNull();
    // The name is free again.
    expect((await owner.post('/v1/buckets', { name: 'to-delete' })).status).toBe(201);
  });
});

describe('CORS rules', () => {
  const rule = {
    allowedOrigins: ['https://app.example.com', 'https://*.example.org'],
    allowedMethods: ['get', 'PUT'],
    allowedHeaders: ['*'],
    exposeHeaders: ['ETag'],
    maxAgeSeconds: 600,
  };

  it('are empty at first, replaced by PUT, summarised on the bucket, removed by DELETE', async () => {
    await owner.post('/v1/buckets', { name: 'cors-bucket' });
    expect((await member.get('/v1/buckets/cors-bucket/cors')).body).toEqual({ rules: [] });

    const put = await owner.put('/v1/buckets/cors-bucket/cors', { rules: [rule] });
    expect(put.status, put.text).toBe(200);
    const stored = { ...rule, allowedMethods: ['GET', 'PUT'] };
    expect(put.body).toEqual({ rules: [stored] });
    expect((await member.get('/v1/buckets/cors-bucket/cors')).body).toEqual({ rules: [stored] });
    expect((await owner.get('/v1/buckets/cors-bucket')).body.cors).toEqual({
      ruleCount: 1,
      allowedOrigins: rule.allowedOrigins,
    });
    // The storage endpoint's cached copy follows at once.
    expect((await gw.gateway.context.store.cache.bucket('cors-bucket'))?.cors?.rules).toEqual([stored]);

    const replaced = await owner.put('/v1/buckets/cors-bucket/cors', {
      rules: [{ allowedOrigins: ['*'], allowedMethods: ['HEAD'] }],
    });
    expect(replaced.body.rules).toEqual([{ allowedOrigins: ['*'], allowedMethods: ['HEAD'] }]);

    expect((await owner.delete('/v1/buckets/cors-bucket/cors')).status).toBe(204);
    expect((await owner.get('/v1/buckets/cors-bucket/cors')).body).toEqual({ rules: [] });
  });

  it('validates the rule shape, naming each bad field', async () => {
    await owner.post('/v1/buckets', { name: 'cors-invalid' });
    const put = (body: unknown) => owner.put('/v1/buckets/cors-invalid/cors', body);
    expectInvalidFields(await put({ rules: [] }), 'rules');
    expectInvalidFields(await put({}), 'rules');
    expectInvalidFields(await put({ rules: [{ allowedMethods: ['GET'] }] }), 'rules[0].allowedOrigins');
    expectInvalidFields(
      await put({
        rules: [rule, { allowedOrigins: ['ftp//nope', '*.*'], allowedMethods: ['GET', 'PATCH'] }],
      }),
      'rules[1].allowedOrigins[0]',
      'rules[1].allowedOrigins[1]',
      'rules[1].allowedMethods[1]',
    );
    expectInvalidFields(
      await put({
        rules: [{ allowedOrigins: ['*'], allowedMethods: ['GET'], allowedHeaders: ['bad header'] }],
      }),
      'rules[0].allowedHeaders[0]',
    );
    expectInvalidFields(
      await put({ rules: [{ allowedOrigins: ['*'], allowedMethods: ['GET'], exposeHeaders: ['*'] }] }),
      'rules[0].exposeHeaders[0]',
    );
    expectInvalidFields(
      await put({ rules: [{ allowedOrigins: ['*'], allowedMethods: ['GET'], maxAgeSeconds: -1 }] }),
      'rules[0].maxAgeSeconds',
    );
    expectInvalidFields(
      await put({ rules: [{ allowedOrigins: [42], allowedMethods: ['GET'], unknown: true }] }),
      'rules[0].allowedOrigins[0]',
    );
    expect((await owner.get('/v1/buckets/cors-invalid/cors')).body).toEqual({ rules: [] });
  });

  it('are written by owners and admins only', async () => {
    await owner.post('/v1/buckets', { name: 'cors-roles' });
    expectProblem(await member.put('/v1/buckets/cors-roles/cors', { rules: [rule] }), 403, 'forbidden');
    expectProblem(await member.delete('/v1/buckets/cors-roles/cors'), 403, 'forbidden');
  });
});

describe('objects', () => {
  beforeAll(async () => {
    await owner.post('/v1/buckets', { name: 'objects-bucket' });
    for (const key of ['a.txt', 'docs/b.txt', 'docs/c.txt', 'docs/deep/d.txt', 'z.txt']) {
      await putObject('objects-bucket', key, `body of ${key}`);
    }
  });

  it('lists every object with its size, ETag and time', async () => {
    const all = await member.get('/v1/buckets/objects-bucket/objects');
    expect(all.status).toBe(200);
    expect(all.body.objects.map((object: { key: string }) => object.key)).toEqual([
      'a.txt',
      'docs/b.txt',
      'docs/c.txt',
      'docs/deep/d.txt',
      'z.txt',
    ]);
    expect(all.body.objects[0]).toEqual({
      key: 'a.txt',
      size: 'body of a.txt'.length,
      etag: expect.any(String),
      lastModified: expect.any(String),
    });
    expect(all.body.nextCursor).toBeNull();
  });

  it('lists under a prefix, grouped by a delimiter', async () => {
    const folder = await member.get('/v1/buckets/objects-bucket/objects?prefix=docs/&delimiter=/');
    expect(folder.body.objects.map((object: { key: string }) => object.key)).toEqual([
      'docs/b.txt',
      'docs/c.txt',
    ]);
    expect(folder.body.commonPrefixes).toEqual(['docs/deep/']);
  });

  it('names a bad limit, or a cursor it never handed out', async () => {
    expectInvalidFields(await member.get('/v1/buckets/objects-bucket/objects?limit=1001'), 'limit');
    expectInvalidFields(await member.get('/v1/buckets/objects-bucket/objects?limit=0'), 'limit');
    // A cursor this list never handed out is the caller's mistake, not the object store's failure.
    for (const cursor of ['garbage', Buffer.from('not a token').toString('base64url')]) {
      expectInvalidFields(await member.get(`/v1/buckets/objects-bucket/objects?cursor=${cursor}`), 'cursor');
    }
  });

  it('pages with an opaque cursor that wraps the object store continuation token', async () => {
    const everything = await member.get('/v1/buckets/objects-bucket/objects');
    const allKeys = everything.body.objects.map((object: { key: string }) => object.key);
    expect(allKeys.length).toBeGreaterThan(2);

    const paged: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
      const page = await member.get(`/v1/buckets/objects-bucket/objects${query}`);
      expect(page.status).toBe(200);
      expect(page.body.objects.length).toBeLessThanOrEqual(2);
      paged.push(...page.body.objects.map((object: { key: string }) => object.key));
      cursor = page.body.nextCursor;
      if (cursor !== null) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      pages += 1;
    } while (cursor !== null && pages < 20);
    expect(paged).toEqual(allKeys);
    expect(pages).toBe(Math.ceil(allKeys.length / 2));
  });

  it('lets only owners and admins delete objects', async () => {
    await putObject('objects-bucket', 'kept/one.txt');
    expectProblem(
      await member.post('/v1/buckets/objects-bucket/objects/delete', { keys: ['kept/one.txt'] }),
      403,
      'forbidden',
    );
    const kept = await owner.get('/v1/buckets/objects-bucket/objects?prefix=kept/');
    expect(kept.body.objects.map((object: { key: string }) => object.key)).toEqual(['kept/one.txt']);
  });

  it('deletes keys with a result per key', async () => {
    await putObject('objects-bucket', 'delete/one.txt');
    await putObject('objects-bucket', 'delete/two.txt');
    const deleted = await owner.post('/v1/buckets/objects-bucket/objects/delete', {
      keys: ['delete/one.txt', 'delete/two.txt', 'delete/never-existed.txt'],
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.results).toHaveLength(3);
    expect(deleted.body.results.slice(0, 2)).toEqual([
      { key: 'delete/one.txt', deleted: true },
      { key: 'delete/two.txt', deleted: true },
    ]);
    expect(deleted.body.results[2].key).toBe('delete/never-existed.txt');
    const left = await owner.get('/v1/buckets/objects-bucket/objects?prefix=delete/');
    expect(left.body.objects).toEqual([]);
  });

  it('names more than 1000 keys, none, or a key with dot segments', async () => {
    const tooMany = Array.from({ length: 1001 }, (_, index) => `k${index}`);
    expectInvalidFields(
      await owner.post('/v1/buckets/objects-bucket/objects/delete', { keys: tooMany }),
      'keys',
    );
    expectInvalidFields(await owner.post('/v1/buckets/objects-bucket/objects/delete', { keys: [] }), 'keys');
    expectInvalidFields(
      await owner.post('/v1/buckets/objects-bucket/objects/delete', { keys: ['fine', 'a/../b'] }),
      'keys[1]',
    );
  });

  it('records a deletion in the audit log with the number of keys asked for', async () => {
    await putObject('objects-bucket', 'audited/one.txt');
    const deleted = await owner.post('/v1/buckets/objects-bucket/objects/delete', {
      keys: ['audited/one.txt', 'audited/two.txt', 'audited/three.txt'],
    });
    expect(deleted.status, deleted.text).toBe(200);
    const log = await owner.get('/v1/organisation/audit-log?limit=1');
    expect(log.body.items[0]).toMatchObject({
      action: 'objects.delete',
      target: 'objects-bucket',
      details: { requested: 3 },
    });
  });
});
