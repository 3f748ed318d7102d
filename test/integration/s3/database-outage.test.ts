/**
 * The storage endpoint while its database does not answer (issue: a stopped database was answered
 * 500 InternalError). A key the gateway does not hold is 503 ServiceUnavailable with Retry-After;
 * keys it verified before the outage keep working past the cache TTL for
 * GATEWAY_CACHE_STALE_IF_ERROR_SECONDS, a revocation seen before the outage stays in force, and
 * everything recovers by itself when the database is back. The database "stops" behind a TCP relay
 * the test cuts, so the shared PostgreSQL keeps serving the other tests.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../support/control-plane.js';
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

function getObject(gateway: TestGateway, credential: TestCredential, key: string): Promise<RawResponse> {
  const path = `/outage/${key}`;
  return signedHeaders({
    credential,
    method: 'GET',
    baseUrl: gateway.s3Url,
    path,
    payloadHash: 'UNSIGNED-PAYLOAD',
  }).then((headers) => sendRaw(gateway.s3Url, { method: 'GET', target: path, headers }));
}

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
  let revoked: TestCredential;
  let unseen: TestCredential;

  beforeAll(async () => {
    outage = await gatewayBehindRelay({
      GATEWAY_CACHE_TTL_SECONDS: '1',
      GATEWAY_CACHE_STALE_IF_ERROR_SECONDS: '600',
    });
    const { gateway } = outage;
    await createBucket(gateway, 'outage');
    known = gateway.credential;
    revoked = await createCredential(gateway);
    unseen = await createCredential(gateway);
    await pathStyleClient(gateway, known).send(
      new PutObjectCommand({ Bucket: 'outage', Key: 'kept.txt', Body: 'still here' }),
    );
    expect((await getObject(gateway, revoked, 'kept.txt')).status).toBe(200);
    // Revoked before the outage: the cache forgets it at once (the store announces the change).
    await gateway.gateway.context.store.credentials.delete(revoked.accessKeyId);
    await outage.proxy.cut();
  });
  afterAll(() => stopOutage(outage));

  it('answers a key it does not hold 503 ServiceUnavailable with Retry-After, not 500', async () => {
    expectDatabaseUnavailable(await getObject(outage.gateway, unseen, 'kept.txt'));
  });

  it('keeps a revocation it saw before the outage', async () => {
    expectDatabaseUnavailable(await getObject(outage.gateway, revoked, 'kept.txt'));
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
    const afterRecovery = await getObject(outage.gateway, revoked, 'kept.txt');
    expect(afterRecovery.status).toBe(403);
    expect(parseS3Error(afterRecovery.body).code).toBe('InvalidAccessKeyId');
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
