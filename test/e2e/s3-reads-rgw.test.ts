/**
 * The reads real tools send, through the gateway to a real Ceph RGW, from aws-cli (`s3api`) and
 * boto3: every bucket and object read the gateway forwards reaches RGW under a read-only key and
 * its answer (data, or an error with a message) reaches the client; what the gateway answers
 * itself comes from its own records; and a bucket versioned on the store works end to end for
 * version reads, version-specific deletes and copies from a version.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import {
  DeleteObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { pathStyleClient } from '../support/s3/clients.js';
import { createBucket, createCredential, type TestCredential } from '../support/s3/fixtures.js';
import { describeProcess, isolatedEnv, runProcess } from './support/subprocess.js';

const rgw = inject('rgw');
const bucket = `e2e-reads-${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const AWS = '/usr/bin/aws';
const PYTHON = '/usr/bin/python3';
const BOTO3_CALLS = fileURLToPath(new URL('./support/boto3-calls.py', import.meta.url));

let gateway: TestGateway;
let reader: TestCredential;
let workDir: string;
const versions: string[] = [];

interface Outcome {
  readonly ok: boolean;
  readonly code?: string;
  readonly message?: string;
  readonly answer?: Record<string, unknown>;
}

/** aws-cli v2 with the given key; an S3 error becomes { ok: false, code, message }. */
async function awsCli(key: TestCredential, args: string[]): Promise<Outcome> {
  const fullArgs = ['--endpoint-url', gateway.s3Url, '--output', 'json', ...args];
  const result = await runProcess(AWS, fullArgs, {
    cwd: workDir,
    env: isolatedEnv(workDir, {
      AWS_ACCESS_KEY_ID: key.accessKeyId,
      AWS_SECRET_ACCESS_KEY: key.secret,
      AWS_DEFAULT_REGION: rgw.region,
      AWS_PAGER: '',
      AWS_MAX_ATTEMPTS: '1',
    }),
  });
  if (result.code === 0) {
    return {
      ok: true,
      answer: result.stdout.trim() === '' ? {} : (JSON.parse(result.stdout) as Record<string, unknown>),
    };
  }
  const match =
    /An error occurred \(([A-Za-z]+)\) when calling the [A-Za-z0-9]+ operation(?: \([^)]*\))?: ?(.*)/.exec(
      result.stderr,
    );
  if (match === null) throw new Error(describeProcess(AWS, fullArgs, result));
  return { ok: false, code: match[1], message: (match[2] ?? '').trim() };
}

/** Several boto3 calls in one Debian python3 process. */
async function boto3(
  key: TestCredential,
  calls: ReadonlyArray<{ method: string; params: Record<string, unknown> }>,
): Promise<Outcome[]> {
  const args = ['-I', BOTO3_CALLS, JSON.stringify(calls)];
  const result = await runProcess(PYTHON, args, {
    cwd: workDir,
    env: isolatedEnv(workDir, {
      AWS_ACCESS_KEY_ID: key.accessKeyId,
      AWS_SECRET_ACCESS_KEY: key.secret,
      AWS_DEFAULT_REGION: rgw.region,
      E2E_ENDPOINT: gateway.s3Url,
    }),
  });
  if (result.code !== 0) throw new Error(describeProcess(PYTHON, args, result));
  const answers = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '[]') as Array<{
    ok?: true;
    answer?: Record<string, unknown>;
    error?: { code: string; message: string | null };
  }>;
  return answers.map((answer) =>
    answer.ok === true
      ? { ok: true, ...(answer.answer === undefined ? {} : { answer: answer.answer }) }
      : { ok: false, code: answer.error?.code ?? '', message: answer.error?.message ?? '' },
  );
}

/** The operation label the gateway logged for its last request of `method`. */
function lastOperation(): string | undefined {
  const lines = gateway.logs
    .map((line) => JSON.parse(line) as { msg?: string; operation?: string })
    .filter((line) => line.msg === 's3 request');
  return lines.at(-1)?.operation;
}

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-reads-'));
  gateway = await startTestGateway({
    GATEWAY_BACKEND_URL: rgw.url,
    GATEWAY_BACKEND_ACCESS_KEY_ID: rgw.accessKeyId,
    GATEWAY_BACKEND_SECRET_ACCESS_KEY: rgw.secretAccessKey,
    GATEWAY_BACKEND_REGION: rgw.region,
  });
  await createBucket(gateway, bucket);
  reader = await createCredential(gateway, { scope: { buckets: [bucket], level: 'read-only' } });
  // Versioning is turned on at the store, outside the storage endpoint (a bucket-level write).
  const store = new S3Client({
    endpoint: rgw.url,
    region: rgw.region,
    forcePathStyle: true,
    credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
  });
  await store.send(
    new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }),
  );
  const writer = pathStyleClient(gateway);
  for (const body of ['first version', 'second version']) {
    const put = await writer.send(new PutObjectCommand({ Bucket: bucket, Key: 'doc.txt', Body: body }));
    versions.push(put.VersionId ?? '');
  }
  await writer.send(new PutObjectCommand({ Bucket: bucket, Key: 'gone.txt', Body: 'soon deleted' }));
  await writer.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'gone.txt' }));
});
afterAll(async () => {
  await gateway?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** Every read the gateway forwards, as aws-cli names it and as boto3 does. */
const FORWARDED_READS: ReadonlyArray<{
  operation: string;
  cli: string[];
  boto3: { method: string; params: Record<string, unknown> };
}> = [
  {
    operation: 'ListObjectVersions',
    cli: ['list-object-versions'],
    boto3: { method: 'list_object_versions', params: {} },
  },
  {
    operation: 'GetBucketVersioning',
    cli: ['get-bucket-versioning'],
    boto3: { method: 'get_bucket_versioning', params: {} },
  },
  {
    operation: 'GetBucketPolicy',
    cli: ['get-bucket-policy'],
    boto3: { method: 'get_bucket_policy', params: {} },
  },
  {
    operation: 'GetBucketPolicyStatus',
    cli: ['get-bucket-policy-status'],
    boto3: { method: 'get_bucket_policy_status', params: {} },
  },
  {
    operation: 'GetBucketTagging',
    cli: ['get-bucket-tagging'],
    boto3: { method: 'get_bucket_tagging', params: {} },
  },
  {
    operation: 'GetBucketEncryption',
    cli: ['get-bucket-encryption'],
    boto3: { method: 'get_bucket_encryption', params: {} },
  },
  {
    operation: 'GetBucketLifecycleConfiguration',
    cli: ['get-bucket-lifecycle-configuration'],
    boto3: { method: 'get_bucket_lifecycle_configuration', params: {} },
  },
  {
    operation: 'GetBucketOwnershipControls',
    cli: ['get-bucket-ownership-controls'],
    boto3: { method: 'get_bucket_ownership_controls', params: {} },
  },
  {
    operation: 'GetPublicAccessBlock',
    cli: ['get-public-access-block'],
    boto3: { method: 'get_public_access_block', params: {} },
  },
  {
    operation: 'GetBucketNotificationConfiguration',
    cli: ['get-bucket-notification-configuration'],
    boto3: { method: 'get_bucket_notification_configuration', params: {} },
  },
  {
    operation: 'GetBucketLogging',
    cli: ['get-bucket-logging'],
    boto3: { method: 'get_bucket_logging', params: {} },
  },
  {
    operation: 'GetBucketWebsite',
    cli: ['get-bucket-website'],
    boto3: { method: 'get_bucket_website', params: {} },
  },
  {
    operation: 'GetBucketRequestPayment',
    cli: ['get-bucket-request-payment'],
    boto3: { method: 'get_bucket_request_payment', params: {} },
  },
  {
    operation: 'GetBucketAccelerateConfiguration',
    cli: ['get-bucket-accelerate-configuration'],
    boto3: { method: 'get_bucket_accelerate_configuration', params: {} },
  },
  {
    operation: 'GetObjectAttributes',
    cli: ['get-object-attributes', '--key', 'doc.txt', '--object-attributes', 'ETag', 'ObjectSize'],
    boto3: {
      method: 'get_object_attributes',
      params: { Key: 'doc.txt', ObjectAttributes: ['ETag', 'ObjectSize'] },
    },
  },
  {
    operation: 'GetObjectRetention',
    cli: ['get-object-retention', '--key', 'doc.txt'],
    boto3: { method: 'get_object_retention', params: { Key: 'doc.txt' } },
  },
  {
    operation: 'GetObjectLegalHold',
    cli: ['get-object-legal-hold', '--key', 'doc.txt'],
    boto3: { method: 'get_object_legal_hold', params: { Key: 'doc.txt' } },
  },
];

describe('reads real tools send, through the gateway to Ceph RGW', () => {
  it.each(FORWARDED_READS)(
    'aws-cli s3api $cli.0 reaches RGW as $operation for a read-only key and shows its answer',
    async ({ operation, cli }) => {
      const outcome = await awsCli(reader, ['s3api', ...cli, '--bucket', bucket]);
      expect(lastOperation()).toBe(operation);
      // RGW's own answer, data or an error document; an error always has a message.
      if (!outcome.ok) {
        expect(outcome.code).not.toBe('AccessDenied');
        expect(outcome.message).toMatch(/\S/);
      }
    },
  );

  it('boto3 gets the same reads through, each with an answer or an error that has a message', async () => {
    const outcomes = await boto3(
      reader,
      FORWARDED_READS.map(({ boto3: call }) => ({
        method: call.method,
        params: { Bucket: bucket, ...call.params },
      })),
    );
    outcomes.forEach((outcome, index) => {
      const { operation } = FORWARDED_READS[index]!;
      if (!outcome.ok) {
        expect(outcome.code, operation).not.toBe('AccessDenied');
        expect(outcome.message, operation).toMatch(/\S/);
      }
    });
    const listed = outcomes[0]?.answer as {
      Versions?: Array<{ Key: string }>;
      DeleteMarkers?: Array<{ Key: string }>;
    };
    expect(listed.Versions?.filter((version) => version.Key === 'doc.txt')).toHaveLength(2);
    expect(listed.DeleteMarkers?.map((marker) => marker.Key)).toEqual(['gone.txt']);
  });

  it('answers GetObjectAttributes from a HEAD of the object (RGW 16.2 does not implement it)', async () => {
    const attributes = await awsCli(reader, [
      's3api',
      'get-object-attributes',
      '--bucket',
      bucket,
      '--key',
      'doc.txt',
      '--object-attributes',
      'ETag',
      'ObjectSize',
      'StorageClass',
    ]);
    expect(attributes.answer).toMatchObject({
      ObjectSize: 'second version'.length,
      StorageClass: 'STANDARD',
    });
    expect(attributes.answer?.ETag).toMatch(/^[0-9a-f]{32}$/);
    expect(attributes.answer?.VersionId).toBe(versions[1]);
  });

  it('answers the bucket ACL and CORS reads from its own records', async () => {
    const acl = await awsCli(reader, ['s3api', 'get-bucket-acl', '--bucket', bucket]);
    expect(acl.ok).toBe(true);
    expect(JSON.stringify(acl.answer)).toContain('FULL_CONTROL');
    expect(JSON.stringify(acl.answer)).not.toContain(rgw.accessKeyId);
    const [cors] = await boto3(reader, [{ method: 'get_bucket_cors', params: { Bucket: bucket } }]);
    expect(cors).toEqual({
      ok: false,
      code: 'NoSuchCORSConfiguration',
      message: 'The CORS configuration does not exist.',
    });
  });
});

describe('a bucket versioned at the store', () => {
  it('lists versions and delete markers, and reads a given version', async () => {
    const listed = await awsCli(reader, [
      's3api',
      'list-object-versions',
      '--bucket',
      bucket,
      '--prefix',
      'doc',
    ]);
    const ids = (listed.answer?.Versions as Array<{ VersionId: string }>).map((version) => version.VersionId);
    expect(ids.sort()).toEqual([...versions].sort());
    const file = path.join(workDir, 'first.txt');
    const first = await awsCli(reader, [
      's3api',
      'get-object',
      '--bucket',
      bucket,
      '--key',
      'doc.txt',
      // One argument with '=': RGW's version ids may start with '-', which aws-cli reads as an option.
      `--version-id=${versions[0]!}`,
      file,
    ]);
    expect(first.ok).toBe(true);
    const [head, latest, deleted] = await boto3(reader, [
      { method: 'head_object', params: { Bucket: bucket, Key: 'doc.txt', VersionId: versions[0] } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'doc.txt' } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'gone.txt' } },
    ]);
    expect(head?.answer?.VersionId).toBe(versions[0]);
    expect(latest?.answer?.BodyText).toBe('second version');
    expect(deleted).toMatchObject({ ok: false, code: 'NoSuchKey' });
    expect(deleted?.message).toMatch(/\S/);
  });

  it('copies from a given version and deletes one version, leaving the other', async () => {
    const writer = gateway.credential;
    const copied = await awsCli(writer, [
      's3api',
      'copy-object',
      '--bucket',
      bucket,
      '--key',
      'restored.txt',
      '--copy-source',
      `${bucket}/doc.txt?versionId=${versions[0]}`,
    ]);
    expect(copied.ok).toBe(true);
    const removed = await awsCli(writer, [
      's3api',
      'delete-object',
      '--bucket',
      bucket,
      '--key',
      'doc.txt',
      `--version-id=${versions[1]!}`,
    ]);
    expect(removed.ok).toBe(true);
    const [restored, nowLatest, gone] = await boto3(reader, [
      { method: 'get_object', params: { Bucket: bucket, Key: 'restored.txt' } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'doc.txt' } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'doc.txt', VersionId: versions[1] } },
    ]);
    expect(restored?.answer?.BodyText).toBe('first version');
    expect(nowLatest?.answer?.BodyText).toBe('first version');
    expect(gone?.ok).toBe(false);
    expect(gone?.message).toMatch(/\S/);
  });

  it('refuses a read-only key a version delete with the scope message', async () => {
    const refused = await awsCli(reader, [
      's3api',
      'delete-object',
      '--bucket',
      bucket,
      '--key',
      'doc.txt',
      `--version-id=${versions[0]!}`,
    ]);
    expect(refused).toEqual({ ok: false, code: 'AccessDenied', message: 'Access to this bucket is denied.' });
  });
});
