/**
 * The storage endpoint while its database does not answer (issue: a stopped database was answered
 * 500 InternalError). A key the gateway does not hold is 503 ServiceUnavailable with Retry-After;
 * keys it verified before the outage keep working past the cache TTL for
 * GATEWAY_CACHE_STALE_IF_ERROR_SECONDS, a revocation or a suspension made through the control
 * plane before the outage stays in force, and everything recovers by itself when the database is back. The database "stops" behind a TCP relay
 * the test cuts, so the shared PostgreSQL keeps serving the other tests.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrganisation, ControlClient, login } from '../../support/control-plane.js';
import { createTestDatabase, realPostgresFor, type TestDatabase } from '../../support/database.js';
import { eventually } from '../../support/eventually.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { pathStyleClient } from '../../support/s3/clients.js';
import { createBucket, createCredential, type TestCredential } from '../../support/s3/fixtures.js';
import { parseS3Error, sendRaw, signedHeaders, type RawResponse } from '../../support/s3/raw-requests.js';
import { startTcpProxy, type TcpProxy } from '../../support/tcp-proxy.js';

const DATABASE_UNAVAILABLE_MESSAGE =
  'The gateway cannot reach its database to check this request. Please retry.';

const postgres = realPostgresFor('the database outage tests');

interface Outage {
  database: TestDatabase;
  proxy: TcpProxy;
  gateway: TestGateway;
}

/** A gateway whose database connection runs through a relay the test can cut. */
async function gatewayBehindRelay(env: Record<string, string>): Promise<Outage> {
  const database = await createTestDatabase();
  const url = new URL(database.url);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const gateway = await startTestGateway({ ...env, DATABASE_URL: url.toString() });
  return { database, proxy, gateway };
}

async function stopOutage(outage: Outage | undefined): Promise<void> {
  if (outage === undefined) return;
  await outage.proxy.restore().catch(() => undefined);
  await outage.gateway.stop();
  await outage.proxy.close();
  await outage.database.drop();
}

function getObject(
  gateway: TestGateway,
  credential: TestCredential,
  key: string,
  bucket = 'outage',
): Promise<RawResponse> {
  const path = `/${bucket}/${key}`;
  return signedHeaders({
    credential,
    method: 'GET',
    baseUrl: gateway.s3Url,
    path,
    payloadHash: 'UNSIGNED-PAYLOAD',
  }).then((headers) => sendRaw(gateway.s3Url, { method: 'GET', target: path, headers }));
}

/** The S3 error of a refusal: status, code and message. */
function refusal(response: RawResponse): { status: number; code?: string; message?: string } {
  const { code, message } = parseS3Error(response.body);
  return { status: response.status, code, message };
}

const REVOKED = {
  status: 403,
  code: 'InvalidAccessKeyId',
  message: 'The AWS Access Key Id you provided does not exist in our records.',
};
const SUSPENDED = {
  status: 403,
  code: 'AccountProblem',
  message: 'There is a problem with your account that prevents the operation from completing successfully.',
};

/** The number of expired cache entries served because the database did not answer. */
async function staleAnswers(gateway: TestGateway): Promise<number> {
  const text = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('gateway_credential_cache_events_total{') && line.includes('event="stale"'))
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

function expectDatabaseUnavailable(response: RawResponse): void {
  expect(response.status).toBe(503);
  expect(response.headers['content-type']).toBe('application/xml');
  expect(response.headers['retry-after']).toBe('1');
  const error = parseS3Error(response.body);
  expect(error).toEqual({
    code: 'ServiceUnavailable',
    message: DATABASE_UNAVAILABLE_MESSAGE,
    requestId: response.headers['x-amz-request-id'],
  });
}

describe.runIf(postgres)('storage requests while the database is down', () => {
  let outage: Outage;
  let known: TestCredential;
  let unseen: TestCredential;
  /** Revoked through DELETE /v1/credentials/{accessKeyId}: one refused again before the outage, one not. */
  let revokedAndRefused: TestCredential;
  let revokedUnread: TestCredential;
  /** Of organisations suspended through the control plane: one refused again before the outage, one not. */
  let suspendedAndRefused: TestCredential;
  let suspendedUnread: TestCredential;

  /** An organisation with a bucket of its name, holding kept.txt, and a read-write key on it. */
  async function organisationWithKey(admin: ControlClient, name: string) {
    const tenant = await addOrganisation(admin, name);
    await tenant.owner.createBucket(name);
    const key = await tenant.owner.createCredential('reader', { buckets: [name], level: 'read-write' });
    await pathStyleClient(outage.gateway, key).send(
      new PutObjectCommand({ Bucket: name, Key: 'kept.txt', Body: 'theirs' }),
    );
    return { organisationId: tenant.organisationId, key };
  }

  beforeAll(async () => {
    outage = await gatewayBehindRelay({
      GATEWAY_CACHE_TTL_SECONDS: '1',
      GATEWAY_CACHE_STALE_IF_ERROR_SECONDS: '600',
    });
    const { gateway } = outage;
    await createBucket(gateway, 'outage');
    known = gateway.credential;
    unseen = await createCredential(gateway);
    await pathStyleClient(gateway, known).send(
      new PutObjectCommand({ Bucket: 'outage', Key: 'kept.txt', Body: 'still here' }),
    );
    const admin = await login(gateway.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);

    // Keys the gateway verified, then revoked through the control plane before the outage.
    const scope = { buckets: ['outage'], level: 'read-only' as const };
    revokedAndRefused = await admin.createCredential('revoked, then refused', scope);
    revokedUnread = await admin.createCredential('revoked, then unread', scope);
    for (const revoked of [revokedAndRefused, revokedUnread]) {
      expect((await getObject(gateway, revoked, 'kept.txt')).status).toBe(200);
      await admin.revokeCredential(revoked.accessKeyId);
    }
    expect(refusal(await getObject(gateway, revokedAndRefused, 'kept.txt'))).toEqual(REVOKED);

    // Organisations whose keys the gateway verified, then suspended through the control plane.
    const refusedTenant = await organisationWithKey(admin, 'outage-suspended-refused');
    const unreadTenant = await organisationWithKey(admin, 'outage-suspended-unread');
    suspendedAndRefused = refusedTenant.key;
    suspendedUnread = unreadTenant.key;
    await admin.suspend(refusedTenant.organisationId, 'suspended before the outage');
    await admin.suspend(unreadTenant.organisationId, 'suspended before the outage');
    expect(
      refusal(await getObject(gateway, suspendedAndRefused, 'kept.txt', 'outage-suspended-refused')),
    ).toEqual(SUSPENDED);

    await outage.proxy.cut();
  });
  afterAll(() => stopOutage(outage));

  it('answers a key it does not hold 503 ServiceUnavailable with Retry-After, not 500', async () => {
    expectDatabaseUnavailable(await getObject(outage.gateway, unseen, 'kept.txt'));
  });

  it('keeps a revocation made through the control plane before the outage, past the cache TTL', async () => {
    // Never read again after the revocation: nothing cached, so nothing to serve but 503.
    expectDatabaseUnavailable(await getObject(outage.gateway, revokedUnread, 'kept.txt'));
    // Refused once before the outage: refused the same way from the expired entry, never served.
    const before = await staleAnswers(outage.gateway);
    await eventually(
      'the revoked key refused from an expired cache entry',
      async () => {
        expect(refusal(await getObject(outage.gateway, revokedAndRefused, 'kept.txt'))).toEqual(REVOKED);
        return (await staleAnswers(outage.gateway)) > before;
      },
      { intervalMs: 100 },
    );
    expectDatabaseUnavailable(await getObject(outage.gateway, revokedUnread, 'kept.txt'));
  });

  it('keeps a suspension made through the control plane before the outage, past the cache TTL', async () => {
    const unread = () => getObject(outage.gateway, suspendedUnread, 'kept.txt', 'outage-suspended-unread');
    const refused = () =>
      getObject(outage.gateway, suspendedAndRefused, 'kept.txt', 'outage-suspended-refused');
    // The organisation's entry went with the suspension: its key, verified before, is not served.
    expectDatabaseUnavailable(await unread());
    const before = await staleAnswers(outage.gateway);
    await eventually(
      'the suspended organisation refused from an expired cache entry',
      async () => {
        expect(refusal(await refused())).toEqual(SUSPENDED);
        return (await staleAnswers(outage.gateway)) > before;
      },
      { intervalMs: 100 },
    );
    expectDatabaseUnavailable(await unread());
  });

  it('keeps serving a key it verified before the outage, past the cache TTL', async () => {
    const s3 = pathStyleClient(outage.gateway, known);
    await eventually(
      'an expired cache entry served while the database is down',
      async () => {
        const object = await s3.send(new GetObjectCommand({ Bucket: 'outage', Key: 'kept.txt' }));
        expect(await object.Body?.transformToString()).toBe('still here');
        return (await staleAnswers(outage.gateway)) > 0;
      },
      { intervalMs: 100 },
    );
  });

  it('answers a login on the control plane 503 problem+json with Retry-After, not 500', async () => {
    const response = await new ControlClient(outage.gateway.controlUrl).post('/v1/auth/login', {
      email: TEST_ADMIN_EMAIL,
      password: TEST_ADMIN_PASSWORD,
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.body).toMatchObject({
      status: 503,
      code: 'database_unavailable',
      detail: 'The gateway cannot reach its database. Retry after a few seconds.',
    });
  });

  it('recovers by itself when the database answers again', async () => {
    await outage.proxy.restore();
    await eventually(
      'the key it never held verified once the database is back',
      async () => (await getObject(outage.gateway, unseen, 'kept.txt')).status === 200,
      { intervalMs: 100 },
    );
    expect(refusal(await getObject(outage.gateway, revokedUnread, 'kept.txt'))).toEqual(REVOKED);
    expect(
      refusal(await getObject(outage.gateway, suspendedUnread, 'kept.txt', 'outage-suspended-unread')),
    ).toEqual(SUSPENDED);
    const login = await new ControlClient(outage.gateway.controlUrl).post('/v1/auth/login', {
      email: TEST_ADMIN_EMAIL,
      password: TEST_ADMIN_PASSWORD,
    });
    expect(login.status).toBe(200);
  });
});

describe.runIf(postgres)('an outage longer than the stale window', () => {
  let outage: Outage;

  beforeAll(async () => {
    outage = await gatewayBehindRelay({
      GATEWAY_CACHE_TTL_SECONDS: '1',
      GATEWAY_CACHE_STALE_IF_ERROR_SECONDS: '1',
    });
    await createBucket(outage.gateway, 'outage');
    await pathStyleClient(outage.gateway).send(
      new PutObjectCommand({ Bucket: 'outage', Key: 'kept.txt', Body: 'still here' }),
    );
    await outage.proxy.cut();
  });
  afterAll(() => stopOutage(outage));

  it('stops serving what it verified before once the window has passed', async () => {
    const last = await eventually(
      'a known key refused once the stale window is over',
      async () => {
        const response = await getObject(outage.gateway, outage.gateway.credential, 'kept.txt');
        return response.status === 200 ? null : response;
      },
      { intervalMs: 100 },
    );
    expectDatabaseUnavailable(last);
  });
});
