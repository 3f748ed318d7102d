import { describe, expect, it } from 'vitest';
import type { Identity } from '../../../src/s3/stages.js';
import { authorise } from '../../../src/s3/steps/authorise.js';
import type { AccessCache, BucketEntry } from '../../../src/store/access-cache.js';
import type { CredentialRecord, OrganisationRecord } from '../../../src/store/records.js';
import { authenticatedFor } from '../../support/s3/stages.js';

const organisations: Record<string, OrganisationRecord> = {
  'org-1': { id: 'org-1', name: 'one', status: 'active' } as OrganisationRecord,
  'org-2': { id: 'org-2', name: 'two', status: 'active' } as OrganisationRecord,
  'org-s': { id: 'org-s', name: 'suspended', status: 'suspended' } as OrganisationRecord,
};
const bucket = (name: string, organisationId: string, isPublic = false) =>
  ({ bucket: { name, organisationId, public: isPublic }, cors: null }) as BucketEntry;
const buckets: Record<string, BucketEntry> = {
  mine: bucket('mine', 'org-1'),
  'mine-too': bucket('mine-too', 'org-1'),
  'public-one': bucket('public-one', 'org-1', true),
  theirs: bucket('theirs', 'org-2'),
  'suspended-public': bucket('suspended-public', 'org-s', true),
};
const cache = {
  bucket: async (name: string) => buckets[name] ?? null,
  organisation: async (id: string) => organisations[id] ?? null,
} as unknown as AccessCache;

function credential(organisationId: string, scope: CredentialRecord['scope']): Identity {
  return {
    kind: 'credential',
    credential: { accessKeyId: 'GWK1', organisationId, scope } as CredentialRecord,
    form: 'header',
    payloadMode: 'UNSIGNED-PAYLOAD',
  };
}
const readWrite = credential('org-1', { buckets: ['*'], level: 'read-write' });
const anonymous: Identity = { kind: 'anonymous' };

async function decide(
  identity: Identity,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const stage = authenticatedFor(identity, method, target, headers);
  if (!stage.classification.ok) throw new Error('test routes must classify');
  try {
    const authorised = await authorise(stage, cache);
    return `allowed (${authorised.organisation.name})`;
  } catch (error) {
    const refused = error as { code: string; definition: { message: string } };
    return `${refused.code}: ${refused.definition.message}`;
  }
}

describe('authorise a credential', () => {
  it("allows its organisation's buckets within scope, and ListBuckets", async () => {
    expect(await decide(readWrite, 'PUT', '/mine/k')).toBe('allowed (one)');
    expect(await decide(readWrite, 'GET', '/')).toBe('allowed (one)');
  });

  it('answers NoSuchBucket for a bucket that does not exist', async () => {
    expect(await decide(readWrite, 'GET', '/nowhere/k')).toBe(
      'NoSuchBucket: The specified bucket does not exist.',
    );
  });

  it('denies other organisations, the allowlist and the methods with one message', async () => {
    const denied = 'AccessDenied: Access to this bucket is denied.';
    expect(await decide(readWrite, 'GET', '/theirs/k')).toBe(denied);
    expect(
      await decide(credential('org-1', { buckets: ['mine'], level: 'read-write' }), 'GET', '/mine-too/k'),
    ).toBe(denied);
    const readOnly = credential('org-1', { buckets: ['*'], level: 'read-only' });
    expect(await decide(readOnly, 'GET', '/mine/k')).toBe('allowed (one)');
    expect(await decide(readOnly, 'HEAD', '/mine/k')).toBe('allowed (one)');
    for (const [method, target] of [
      ['PUT', '/mine/k'],
      ['DELETE', '/mine/k'],
      ['POST', '/mine/k?uploads'],
      ['POST', '/mine?delete'],
    ]) {
      expect(await decide(readOnly, method as string, target as string)).toBe(denied);
    }
    const noDelete = credential('org-1', { buckets: ['*'], methods: ['GET', 'PUT', 'POST'] });
    expect(await decide(noDelete, 'POST', '/mine?delete')).toBe(denied);
  });

  it('refuses everything of a suspended organisation with AccountProblem, before anything else', async () => {
    const suspended = credential('org-s', { buckets: ['*'], level: 'read-write' });
    for (const target of ['/', '/nowhere/k', '/theirs/k', '/suspended-public/k']) {
      expect(await decide(suspended, 'GET', target)).toMatch(/^AccountProblem/);
    }
  });
});

describe('authorise an anonymous request', () => {
  it('allows only object reads of public buckets', async () => {
    expect(await decide(anonymous, 'GET', '/public-one/k')).toBe('allowed (one)');
    expect(await decide(anonymous, 'HEAD', '/public-one/k')).toBe('allowed (one)');
    for (const [method, target] of [
      ['GET', '/public-one'],
      ['PUT', '/public-one/k'],
      ['GET', '/mine/k'],
      ['GET', '/'],
    ]) {
      expect(await decide(anonymous, method as string, target as string)).toBe('AccessDenied: Access Denied');
    }
  });

  it('refuses public reads of a suspended organisation with AccountProblem', async () => {
    expect(await decide(anonymous, 'GET', '/suspended-public/k')).toMatch(/^AccountProblem/);
  });
});

describe('authorise a copy source', () => {
  const copy = (source: string) => ({ 'x-amz-copy-source': source });

  it('lets a credential copy from a bucket it may read', async () => {
    expect(await decide(readWrite, 'PUT', '/mine/copy', copy('/mine-too/original'))).toBe('allowed (one)');
  });

  it("refuses a source in another organisation's bucket, or outside the scope, like any read", async () => {
    const denied = 'AccessDenied: Access to this bucket is denied.';
    expect(await decide(readWrite, 'PUT', '/mine/copy', copy('/theirs/original'))).toBe(denied);
    const onlyMine = credential('org-1', { buckets: ['mine'], level: 'read-write' });
    expect(await decide(onlyMine, 'PUT', '/mine/copy', copy('/mine-too/original'))).toBe(denied);
    const writeOnly = credential('org-1', { buckets: ['*'], methods: ['PUT'] });
    expect(await decide(writeOnly, 'PUT', '/mine/copy', copy('/mine-too/original'))).toBe(denied);
  });

  it('answers NoSuchBucket for a source bucket that does not exist, InvalidArgument for a malformed source', async () => {
    expect(await decide(readWrite, 'PUT', '/mine/copy', copy('/nowhere/original'))).toBe(
      'NoSuchBucket: The specified bucket does not exist.',
    );
    expect(await decide(readWrite, 'PUT', '/mine/copy', copy('/mine-too/a/../b'))).toBe(
      'InvalidArgument: Copy Source must mention the source bucket and key: sourcebucket/sourcekey, URL-encoded, without dot segments.',
    );
  });
});
