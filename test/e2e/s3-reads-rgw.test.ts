/**
 * The reads real tools send, through the gateway to a real Ceph RGW, from aws-cli (`s3api`) and
 * boto3: every bucket and object read the gateway offers, each with the exact answer a read-only
 * key gets (RGW 16.2's, whose request RGW's own log shows, or the gateway's where it answers
 * itself, which RGW never sees); and a bucket versioned on the store works end to end for version
 * reads and listings, version-specific deletes (delete markers included) and copies from a version.
 * What RGW 16.2 answers is recorded in scripts/ceph-rgw/README.md.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { pathStyleClient } from '../support/s3/clients.js';
import { createBucket, createCredential, type TestCredential } from '../support/s3/fixtures.js';
import { describeProcess, isolatedEnv, runProcess } from './support/subprocess.js';
import { backendEnv } from './support/rgw.js';

const rgw = inject('rgw');
const bucket = `e2e-reads-${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const AWS = '/usr/bin/aws';
const PYTHON = '/usr/bin/python3';
const BOTO3_CALLS = fileURLToPath(new URL('./support/boto3-calls.py', import.meta.url));

let gateway: TestGateway;
let reader: TestCredential;
let workDir: string;
/** doc.txt's versions, oldest first. */
const versions: string[] = [];
/** The ETag of doc.txt's current version, without quotes (as GetObjectAttributes gives it). */
const secondEtag = createHash('md5').update('second version').digest('hex');
/** A multipart upload left in progress, with one 5-byte part. */
let pendingUpload = '';

interface Outcome {
  readonly ok: boolean;
  /** The HTTP status of an error (boto3 tells it, aws-cli does not). */
  readonly status?: number;
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
    error?: { code: string; message: string | null; status: number };
  }>;
  return answers.map((answer) =>
    answer.ok === true
      ? { ok: true, ...(answer.answer === undefined ? {} : { answer: answer.answer }) }
      : {
          ok: false,
          status: answer.error?.status ?? 0,
          code: answer.error?.code ?? '',
          message: answer.error?.message ?? '',
        },
  );
}

/** The operation label the gateway logged for its last request. */
function lastOperation(): string | undefined {
  const lines = gateway.logs
    .map((line) => JSON.parse(line) as { msg?: string; operation?: string })
    .filter((line) => line.msg === 's3 request');
  return lines.at(-1)?.operation;
}

/** radosgw's log, with one line per request it served (null for an RGW this run does not manage). */
const RGW_LOG = rgw.directory === null ? null : path.join(rgw.directory, 'log', 'client.rgw.log');

function rgwLogSize(): number {
  return RGW_LOG === null ? 0 : statSync(RGW_LOG).size;
}

/** The requests for this file's bucket RGW logged since `offset`: "METHOD target-after-the-bucket" and status. */
function rgwRequestsSince(offset: number): Array<{ request: string; status: number }> {
  if (RGW_LOG === null) return [];
  const text = readFileSync(RGW_LOG).subarray(offset).toString('utf8');
  const prefix = `/${bucket}`;
  return [...text.matchAll(/ beast: \S+: \S+ - \S+ \[[^\]]+\] "([A-Z]+) (\S+) HTTP\/1\.1" (\d{3}) /g)]
    .filter((match) => match[2]!.startsWith(prefix))
    .map((match) => ({
      request: `${match[1]} ${match[2]!.slice(prefix.length)}`,
      status: Number(match[3]),
    }));
}

/**
 * Each forwarded read reached RGW, which answered it with the status the client got (2xx for a
 * success); what the gateway answers itself never reached it. Skipped against an RGW this run does
 * not manage (no log to read).
 */
async function expectAtRgw(
  since: number,
  reads: ReadonlyArray<{
    atRgw: RegExp;
    answeredByGateway: true | undefined;
    expected: Expected;
    operation: string;
  }>,
): Promise<void> {
  if (RGW_LOG === null) return;
  const forwarded = reads.filter((read) => read.answeredByGateway !== true);
  // radosgw writes the line once the answer is sent: the client may have it a moment before.
  const seen = await eventually(
    () => `RGW to log ${forwarded.map((read) => read.operation).join(', ')}`,
    () => {
      const logged = rgwRequestsSince(since);
      return forwarded.every((read) => logged.some(({ request }) => read.atRgw.test(request)))
        ? logged
        : null;
    },
  );
  for (const read of reads) {
    const matching = seen.filter(({ request }) => read.atRgw.test(request));
    if (read.answeredByGateway === true) {
      expect(matching, `${read.operation} reached RGW`).toEqual([]);
      continue;
    }
    const statuses = matching.map(({ status }) => status);
    if (read.expected.ok)
      expect(
        statuses.every((status) => status >= 200 && status < 300),
        read.operation,
      ).toBe(true);
    else expect(statuses, read.operation).toContain(read.expected.status);
  }
}

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'gw-e2e-reads-'));
  gateway = await startTestGateway({
    ...backendEnv(rgw),
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
  await writer.send(
    new PutObjectTaggingCommand({
      Bucket: bucket,
      Key: 'doc.txt',
      Tagging: { TagSet: [{ Key: 'colour', Value: 'blue' }] },
    }),
  );
  await writer.send(new PutObjectCommand({ Bucket: bucket, Key: 'gone.txt', Body: 'soon deleted' }));
  await writer.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'gone.txt' }));
  const upload = await writer.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'pending.bin' }));
  pendingUpload = upload.UploadId ?? '';
  await writer.send(
    new UploadPartCommand({
      Bucket: bucket,
      Key: 'pending.bin',
      UploadId: pendingUpload,
      PartNumber: 1,
      Body: 'five!',
    }),
  );
});
afterAll(async () => {
  await gateway?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** What a read must give a client: the meaningful part of its answer, or RGW's error exactly. */
type Expected =
  | { readonly ok: true; readonly answer: Record<string, unknown>; readonly exact?: true }
  | { readonly ok: false; readonly status: number; readonly code: string; readonly message: string };

interface Read {
  readonly operation: string;
  /** The s3api command and its arguments but `--bucket`. */
  readonly cli: readonly string[];
  readonly boto3: { readonly method: string; readonly params: Record<string, unknown> };
  /** The request as RGW logs it: the method, a space, and the target after `/bucket`. */
  readonly atRgw: RegExp;
  /** Answered by the gateway itself: RGW must not see the request. */
  readonly answeredByGateway?: true;
  /** Built when the test runs: the fixture's version ids and upload id are known by then. */
  readonly expected: () => Expected;
}

/** An error RGW answered, as the client sees it (the gateway fills in the messages RGW leaves empty). */
function refused(status: number, code: string, message: string): () => Expected {
  return () => ({ ok: false, status, code, message });
}

/** Every read a client may send about a bucket and its objects, and the answer through the gateway. */
const READS: readonly Read[] = [
  {
    operation: 'HeadBucket',
    cli: ['head-bucket'],
    boto3: { method: 'head_bucket', params: {} },
    atRgw: /^HEAD $/,
    expected: () => ({ ok: true, answer: {} }),
  },
  {
    operation: 'ListObjects',
    cli: ['list-objects'],
    boto3: { method: 'list_objects', params: {} },
    atRgw: /^GET (\?encoding-type=url)?$/,
    expected: () => ({ ok: true, answer: { Contents: [{ Key: 'doc.txt', Size: 14 }] } }),
  },
  {
    operation: 'ListObjectVersions',
    cli: ['list-object-versions'],
    boto3: { method: 'list_object_versions', params: {} },
    atRgw: /^GET \?versions/,
    expected: () => ({
      ok: true,
      answer: {
        Versions: [
          { Key: 'doc.txt', VersionId: versions[1], IsLatest: true, Size: 14 },
          { Key: 'doc.txt', VersionId: versions[0], IsLatest: false, Size: 13 },
          { Key: 'gone.txt', IsLatest: false, Size: 12 },
        ],
        DeleteMarkers: [{ Key: 'gone.txt', IsLatest: true }],
      },
    }),
  },
  {
    operation: 'ListMultipartUploads',
    cli: ['list-multipart-uploads'],
    boto3: { method: 'list_multipart_uploads', params: {} },
    atRgw: /^GET \?uploads/,
    expected: () => ({ ok: true, answer: { Uploads: [{ Key: 'pending.bin', UploadId: pendingUpload }] } }),
  },
  {
    operation: 'GetBucketVersioning',
    cli: ['get-bucket-versioning'],
    boto3: { method: 'get_bucket_versioning', params: {} },
    atRgw: /^GET \?versioning/,
    expected: () => ({ ok: true, answer: { Status: 'Enabled', MFADelete: 'Disabled' }, exact: true }),
  },
  {
    operation: 'GetBucketPolicy',
    cli: ['get-bucket-policy'],
    boto3: { method: 'get_bucket_policy', params: {} },
    atRgw: /^GET \?policy=?$/,
    expected: refused(404, 'NoSuchBucketPolicy', 'The bucket policy does not exist'),
  },
  {
    operation: 'GetBucketPolicyStatus',
    cli: ['get-bucket-policy-status'],
    boto3: { method: 'get_bucket_policy_status', params: {} },
    atRgw: /^GET \?policyStatus/,
    expected: () => ({ ok: true, answer: { PolicyStatus: { IsPublic: false } }, exact: true }),
  },
  {
    operation: 'GetBucketTagging',
    cli: ['get-bucket-tagging'],
    boto3: { method: 'get_bucket_tagging', params: {} },
    atRgw: /^GET \?tagging/,
    expected: refused(404, 'NoSuchTagSet', 'The bucket has no tags.'),
  },
  {
    operation: 'GetBucketEncryption',
    cli: ['get-bucket-encryption'],
    boto3: { method: 'get_bucket_encryption', params: {} },
    atRgw: /^GET \?encryption/,
    answeredByGateway: true,
    expected: refused(
      404,
      'ServerSideEncryptionConfigurationNotFoundError',
      'The server side encryption configuration was not found.',
    ),
  },
  {
    operation: 'GetBucketLifecycleConfiguration',
    cli: ['get-bucket-lifecycle-configuration'],
    boto3: { method: 'get_bucket_lifecycle_configuration', params: {} },
    atRgw: /^GET \?lifecycle/,
    expected: refused(404, 'NoSuchLifecycleConfiguration', 'The bucket has no lifecycle configuration.'),
  },
  {
    operation: 'GetBucketOwnershipControls',
    cli: ['get-bucket-ownership-controls'],
    boto3: { method: 'get_bucket_ownership_controls', params: {} },
    atRgw: /^GET \?ownershipControls/,
    answeredByGateway: true,
    expected: refused(404, 'OwnershipControlsNotFoundError', 'The bucket ownership controls were not found.'),
  },
  {
    operation: 'GetPublicAccessBlock',
    cli: ['get-public-access-block'],
    boto3: { method: 'get_public_access_block', params: {} },
    atRgw: /^GET \?publicAccessBlock/,
    expected: () => ({
      ok: true,
      answer: {
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: false,
          IgnorePublicAcls: false,
          BlockPublicPolicy: false,
          RestrictPublicBuckets: false,
        },
      },
      exact: true,
    }),
  },
  {
    operation: 'GetBucketNotificationConfiguration',
    cli: ['get-bucket-notification-configuration'],
    boto3: { method: 'get_bucket_notification_configuration', params: {} },
    atRgw: /^GET \?notification/,
    expected: () => ({ ok: true, answer: {}, exact: true }),
  },
  {
    operation: 'GetBucketLogging',
    cli: ['get-bucket-logging'],
    boto3: { method: 'get_bucket_logging', params: {} },
    atRgw: /^GET \?logging/,
    expected: () => ({ ok: true, answer: {}, exact: true }),
  },
  {
    operation: 'GetBucketWebsite',
    cli: ['get-bucket-website'],
    boto3: { method: 'get_bucket_website', params: {} },
    atRgw: /^GET \?website/,
    // RGW 16.2 serves no website API unless rgw_enable_static_website is set.
    expected: refused(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.'),
  },
  {
    operation: 'GetBucketRequestPayment',
    cli: ['get-bucket-request-payment'],
    boto3: { method: 'get_bucket_request_payment', params: {} },
    atRgw: /^GET \?requestPayment/,
    expected: () => ({ ok: true, answer: { Payer: 'BucketOwner' }, exact: true }),
  },
  {
    operation: 'GetBucketAccelerateConfiguration',
    cli: ['get-bucket-accelerate-configuration'],
    boto3: { method: 'get_bucket_accelerate_configuration', params: {} },
    atRgw: /^GET \?accelerate/,
    answeredByGateway: true,
    expected: () => ({ ok: true, answer: {}, exact: true }),
  },
  {
    operation: 'GetBucketReplication',
    cli: ['get-bucket-replication'],
    boto3: { method: 'get_bucket_replication', params: {} },
    atRgw: /^GET \?replication/,
    // RGW 16.2 answers a configuration without rules where S3 answers ReplicationConfigurationNotFoundError.
    expected: () => ({ ok: true, answer: { ReplicationConfiguration: { Role: '' } }, exact: true }),
  },
  {
    operation: 'GetObjectLockConfiguration',
    cli: ['get-object-lock-configuration'],
    boto3: { method: 'get_object_lock_configuration', params: {} },
    atRgw: /^GET \?object-lock/,
    expected: refused(
      404,
      'ObjectLockConfigurationNotFoundError',
      'The bucket has no object lock configuration.',
    ),
  },
  {
    operation: 'GetObjectTagging',
    cli: ['get-object-tagging', '--key', 'doc.txt'],
    boto3: { method: 'get_object_tagging', params: { Key: 'doc.txt' } },
    atRgw: /^GET \/doc\.txt\?tagging/,
    // RGW 16.2 sends no x-amz-version-id with it.
    expected: () => ({ ok: true, answer: { TagSet: [{ Key: 'colour', Value: 'blue' }] }, exact: true }),
  },
  {
    operation: 'GetObjectAttributes',
    cli: ['get-object-attributes', '--key', 'doc.txt', '--object-attributes', 'ETag', 'ObjectSize'],
    boto3: {
      method: 'get_object_attributes',
      params: { Key: 'doc.txt', ObjectAttributes: ['ETag', 'ObjectSize'] },
    },
    // Answered from a HEAD of the object: RGW 16.2 answers ?attributes with the object's body.
    atRgw: /^HEAD \/doc\.txt$/,
    expected: () => ({
      ok: true,
      answer: { ETag: secondEtag, ObjectSize: 14, VersionId: versions[1] },
    }),
  },
  {
    operation: 'GetObjectRetention',
    cli: ['get-object-retention', '--key', 'doc.txt'],
    boto3: { method: 'get_object_retention', params: { Key: 'doc.txt' } },
    atRgw: /^GET \/doc\.txt\?retention/,
    expected: refused(400, 'InvalidRequest', 'bucket object lock not configured'),
  },
  {
    operation: 'GetObjectLegalHold',
    cli: ['get-object-legal-hold', '--key', 'doc.txt'],
    boto3: { method: 'get_object_legal_hold', params: { Key: 'doc.txt' } },
    atRgw: /^GET \/doc\.txt\?legal-hold/,
    expected: refused(400, 'InvalidRequest', 'bucket object lock not configured'),
  },
  {
    operation: 'ListParts',
    cli: ['list-parts', '--key', 'pending.bin', '--upload-id', '${upload}'],
    boto3: { method: 'list_parts', params: { Key: 'pending.bin', UploadId: '${upload}' } },
    atRgw: /^GET \/pending\.bin\?uploadId=/,
    expected: () => ({ ok: true, answer: { Parts: [{ PartNumber: 1, Size: 5 }] } }),
  },
];

/** The read's arguments with the fixture's upload id in place of `${upload}`. */
function withUpload<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll('${upload}', pendingUpload)) as T;
}

/** What the client saw, in the shape of {@link Expected}: aws-cli tells no status, so only boto3's is compared. */
function expectOutcome(outcome: Outcome, expected: Expected, label: string): void {
  if (!expected.ok) {
    expect({ ...outcome, status: outcome.status ?? expected.status }, label).toEqual({
      ok: false,
      status: expected.status,
      code: expected.code,
      message: expected.message,
    });
    return;
  }
  expect(outcome.ok, `${label}: ${JSON.stringify(outcome)}`).toBe(true);
  if (expected.exact === true) expect(outcome.answer, label).toEqual(expected.answer);
  else expect(outcome.answer, label).toMatchObject(expected.answer);
}

describe('reads real tools send, through the gateway to Ceph RGW', () => {
  it.each(READS)(
    "aws-cli s3api $cli.0 is $operation for a read-only key, with RGW's answer or the gateway's own",
    async ({ operation, cli, atRgw, answeredByGateway, expected }) => {
      const since = rgwLogSize();
      const outcome = await awsCli(reader, ['s3api', ...withUpload(cli), '--bucket', bucket]);
      expect(lastOperation()).toBe(operation);
      const wanted = expected();
      expectOutcome(outcome, wanted, operation);
      await expectAtRgw(since, [{ atRgw, answeredByGateway, expected: wanted, operation }]);
    },
  );

  it('boto3 sends the same reads and gets the same answers', async () => {
    const since = rgwLogSize();
    const outcomes = await boto3(
      reader,
      READS.map(({ boto3: call }) => ({
        method: call.method,
        params: { Bucket: bucket, ...withUpload(call.params) },
      })),
    );
    READS.forEach(({ operation, expected }, index) => {
      expectOutcome(outcomes[index] ?? { ok: false }, expected(), operation);
    });
    await expectAtRgw(
      since,
      READS.map(({ atRgw, answeredByGateway, expected, operation }) => ({
        atRgw,
        answeredByGateway,
        expected: expected(),
        operation,
      })),
    );
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
      ETag: secondEtag,
      ObjectSize: 'second version'.length,
      StorageClass: 'STANDARD',
      VersionId: versions[1],
    });
  });

  it('answers the bucket ACL and CORS reads from its own records', async () => {
    const acl = await awsCli(reader, ['s3api', 'get-bucket-acl', '--bucket', bucket]);
    expect(acl.ok).toBe(true);
    expect(JSON.stringify(acl.answer)).toContain('FULL_CONTROL');
    expect(JSON.stringify(acl.answer)).not.toContain(rgw.accessKeyId);
    const [cors] = await boto3(reader, [{ method: 'get_bucket_cors', params: { Bucket: bucket } }]);
    expect(cors).toEqual({
      ok: false,
      status: 404,
      code: 'NoSuchCORSConfiguration',
      message: 'The CORS configuration does not exist.',
    });
  });
});

describe('a bucket versioned at the store', () => {
  it('lists versions a page at a time, with the key and version-id markers', async () => {
    const first = await awsCli(reader, [
      's3api',
      'list-object-versions',
      '--bucket',
      bucket,
      '--prefix',
      'doc',
      '--max-keys',
      '1',
      '--no-paginate',
    ]);
    expect(first.answer).toMatchObject({
      Versions: [{ Key: 'doc.txt', VersionId: versions[1], IsLatest: true }],
      IsTruncated: true,
      NextKeyMarker: 'doc.txt',
      NextVersionIdMarker: versions[1],
    });
    const second = await awsCli(reader, [
      's3api',
      'list-object-versions',
      '--bucket',
      bucket,
      '--prefix',
      'doc',
      '--max-keys',
      '1',
      '--no-paginate',
      '--key-marker',
      'doc.txt',
      // One argument with '=': RGW's version ids may start with '-', which aws-cli reads as an option.
      `--version-id-marker=${versions[1]!}`,
    ]);
    expect(second.answer).toMatchObject({
      Versions: [{ Key: 'doc.txt', VersionId: versions[0], IsLatest: false }],
      IsTruncated: false,
    });
    const [page] = await boto3(reader, [
      {
        method: 'list_object_versions',
        params: { Bucket: bucket, MaxKeys: 1, KeyMarker: 'doc.txt', VersionIdMarker: versions[1] },
      },
    ]);
    expect(page?.answer).toMatchObject({
      Versions: [{ Key: 'doc.txt', VersionId: versions[0] }],
      IsTruncated: true,
      NextKeyMarker: 'doc.txt',
      NextVersionIdMarker: versions[0],
    });
  });

  it('reads a given version, with aws-cli and boto3', async () => {
    const file = path.join(workDir, 'first.txt');
    const first = await awsCli(reader, [
      's3api',
      'get-object',
      '--bucket',
      bucket,
      '--key',
      'doc.txt',
      `--version-id=${versions[0]!}`,
      file,
    ]);
    expect(first.answer).toMatchObject({ VersionId: versions[0], ContentLength: 13 });
    expect(readFileSync(file, 'utf8')).toBe('first version');
    const [head, old, latest, deleted, unknown] = await boto3(reader, [
      { method: 'head_object', params: { Bucket: bucket, Key: 'doc.txt', VersionId: versions[0] } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'doc.txt', VersionId: versions[0] } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'doc.txt' } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'gone.txt' } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'doc.txt', VersionId: 'A'.repeat(32) } },
    ]);
    expect(head?.answer).toMatchObject({ VersionId: versions[0], ContentLength: 13 });
    expect(old?.answer).toMatchObject({ VersionId: versions[0], BodyText: 'first version' });
    expect(latest?.answer).toMatchObject({ VersionId: versions[1], BodyText: 'second version' });
    expect(deleted).toEqual({
      ok: false,
      status: 404,
      code: 'NoSuchKey',
      message: 'The specified key does not exist.',
    });
    // RGW 16.2 answers a version that does not exist with NoSuchKey (S3: NoSuchVersion).
    expect(unknown).toEqual({
      ok: false,
      status: 404,
      code: 'NoSuchKey',
      message: 'The specified key does not exist.',
    });
  });

  it('answers GetObjectAttributes for a given version, and NoSuchVersion for one that does not exist', async () => {
    const attributes = await awsCli(reader, [
      's3api',
      'get-object-attributes',
      '--bucket',
      bucket,
      '--key',
      'doc.txt',
      `--version-id=${versions[0]!}`,
      '--object-attributes',
      'ETag',
      'ObjectSize',
    ]);
    expect(attributes.answer).toMatchObject({
      ETag: createHash('md5').update('first version').digest('hex'),
      ObjectSize: 13,
      VersionId: versions[0],
    });
    const [missing] = await boto3(reader, [
      {
        method: 'get_object_attributes',
        params: { Bucket: bucket, Key: 'doc.txt', VersionId: 'A'.repeat(32), ObjectAttributes: ['ETag'] },
      },
    ]);
    expect(missing).toEqual({
      ok: false,
      status: 404,
      code: 'NoSuchVersion',
      message: 'The specified version does not exist.',
    });
  });

  it('copies from a given version and deletes one version with aws-cli, leaving the other', async () => {
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
    // RGW 16.2 tells neither the copy's version nor its source's (no x-amz-*version-id headers),
    // and its CopyObjectResult's ETag has no quotes.
    expect(copied.answer).toEqual({
      CopyObjectResult: {
        ETag: createHash('md5').update('first version').digest('hex'),
        LastModified: expect.any(String),
      },
    });
    const removed = await awsCli(writer, [
      's3api',
      'delete-object',
      '--bucket',
      bucket,
      '--key',
      'doc.txt',
      `--version-id=${versions[1]!}`,
    ]);
    expect(removed.answer).toEqual({ VersionId: versions[1] });
    const [restored, nowLatest, gone] = await boto3(reader, [
      { method: 'get_object', params: { Bucket: bucket, Key: 'restored.txt' } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'doc.txt' } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'doc.txt', VersionId: versions[1] } },
    ]);
    expect(restored?.answer?.BodyText).toBe('first version');
    expect(nowLatest?.answer).toMatchObject({ VersionId: versions[0], BodyText: 'first version' });
    expect(gone).toMatchObject({ ok: false, status: 404, code: 'NoSuchKey' });
  });

  it('copies from a given version and deletes one version with boto3, leaving the other', async () => {
    const writer = { accessKeyId: gateway.credential.accessKeyId, secret: gateway.credential.secret };
    const [one, two] = await boto3(writer, [
      { method: 'put_object', params: { Bucket: bucket, Key: 'notes.txt', Body: 'one' } },
      { method: 'put_object', params: { Bucket: bucket, Key: 'notes.txt', Body: 'two' } },
    ]);
    const oldest = one?.answer?.VersionId as string;
    const newest = two?.answer?.VersionId as string;
    expect(oldest).not.toBe(newest);
    const [copied, removed, restored, latest, gone] = await boto3(writer, [
      {
        method: 'copy_object',
        params: {
          Bucket: bucket,
          Key: 'notes-restored.txt',
          CopySource: { Bucket: bucket, Key: 'notes.txt', VersionId: oldest },
        },
      },
      { method: 'delete_object', params: { Bucket: bucket, Key: 'notes.txt', VersionId: newest } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'notes-restored.txt' } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'notes.txt' } },
      { method: 'get_object', params: { Bucket: bucket, Key: 'notes.txt', VersionId: newest } },
    ]);
    expect(copied?.answer).toMatchObject({
      CopyObjectResult: { ETag: createHash('md5').update('one').digest('hex') },
    });
    expect(removed?.answer).toMatchObject({ VersionId: newest });
    expect(restored?.answer?.BodyText).toBe('one');
    expect(latest?.answer).toMatchObject({ VersionId: oldest, BodyText: 'one' });
    expect(gone).toMatchObject({ ok: false, status: 404, code: 'NoSuchKey' });
  });

  it('deletes a delete marker by its version id, which brings the object back', async () => {
    const listed = await awsCli(reader, [
      's3api',
      'list-object-versions',
      '--bucket',
      bucket,
      '--prefix',
      'gone',
    ]);
    const markers = listed.answer?.DeleteMarkers as Array<{ Key: string; VersionId: string }>;
    expect(markers.map((marker) => marker.Key)).toEqual(['gone.txt']);
    const marker = markers[0]!.VersionId;
    const removed = await awsCli(gateway.credential, [
      's3api',
      'delete-object',
      '--bucket',
      bucket,
      '--key',
      'gone.txt',
      `--version-id=${marker}`,
    ]);
    expect(removed.answer).toEqual({ DeleteMarker: true, VersionId: marker });
    const [back] = await boto3(reader, [
      { method: 'get_object', params: { Bucket: bucket, Key: 'gone.txt' } },
    ]);
    expect(back?.answer?.BodyText).toBe('soon deleted');
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
