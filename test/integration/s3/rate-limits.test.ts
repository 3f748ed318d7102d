import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { pathStyleClient } from '../../support/s3/clients.js';
import type { TestCredential } from '../../support/s3/fixtures.js';
import { parseS3Error } from '../../support/s3/raw-requests.js';
import { addOrganisation, ControlClient, login } from '../../support/control-plane.js';
import { expectInvalidFields, expectProblem } from '../../support/problems.js';

/**
 * Request rate limits on one gateway, set through the control plane. The rates are far below one
 * request per second, so what a burst of requests gets depends on the burst alone, never on how
 * fast the machine sends them.
 */
let gw: TestGateway;
let admin: ControlClient;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  admin = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
});
afterAll(async () => {
  await gw?.stop();
});

async function credential(owner: ControlClient): Promise<TestCredential> {
  const created = await owner.post('/v1/credentials', {
    name: 'limited',
    scope: { buckets: ['*'], level: 'read-write' },
  });
  expect(created.status, created.text).toBe(201);
  return { accessKeyId: created.body.accessKeyId, secret: created.body.secret };
}

/** Statuses (and SlowDown's Retry-After) of `count` GETs of one presigned URL, one after the other. */
async function getMany(
  url: string,
  count: number,
): Promise<{ status: number; code: string; message: string; retryAfter: string | null }[]> {
  const outcomes = [];
  for (let index = 0; index < count; index += 1) {
    const response = await fetch(url);
    const body = await response.text();
    const error = response.status === 200 ? null : parseS3Error(body);
    outcomes.push({
      status: response.status,
      code: error?.code ?? '',
      message: error?.message ?? '',
      retryAfter: response.headers.get('retry-after'),
    });
  }
  return outcomes;
}

async function presignedGet(key: TestCredential, bucket: string, object: string): Promise<string> {
  return getSignedUrl(pathStyleClient(gw, key), new GetObjectCommand({ Bucket: bucket, Key: object }), {
    expiresIn: 3600,
  });
}

describe('request rate limits', () => {
  it('refuse what a credential sends over its burst with SlowDown and Retry-After, other credentials unaffected', async () => {
    const tenant = await addOrganisation(admin, 'rate-credential');
    expect((await tenant.owner.post('/v1/buckets', { name: 'rate-credential' })).status).toBe(201);
    const set = await tenant.owner.patch('/v1/organisation', {
      limits: { credentialRequestsPerSecond: 0.01, credentialRequestBurst: 3 },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.limits).toMatchObject({ credentialRequestsPerSecond: 0.01, credentialRequestBurst: 3 });
    const busy = await credential(tenant.owner);
    const quiet = await credential(tenant.owner);
    await pathStyleClient(gw, quiet).send(
      new PutObjectCommand({ Bucket: 'rate-credential', Key: 'a.txt', Body: 'hello' }),
    );

    const outcomes = await getMany(await presignedGet(busy, 'rate-credential', 'a.txt'), 5);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([200, 200, 200, 503, 503]);
    expect(outcomes[3]?.code).toBe('SlowDown');
    expect(outcomes[3]?.message).toBe(
      'Please reduce your request rate: this access key is over its requests-per-second limit.',
    );
    // The next token is 100 s away.
    expect(Number(outcomes[3]?.retryAfter)).toBeGreaterThanOrEqual(99);
    // The other credential has a budget of its own (one request spent on the upload).
    const other = await getMany(await presignedGet(quiet, 'rate-credential', 'a.txt'), 2);
    expect(other.map((outcome) => outcome.status)).toEqual([200, 200]);

    const report = await tenant.owner.get('/v1/organisation/usage');
    expect(report.body.requestRates).toEqual({
      perCredential: { requestsPerSecond: 0.01, burst: 3 },
      throttledRequests: 2,
      byCredential: [{ accessKeyId: busy.accessKeyId, throttledRequests: 2 }],
    });
    // Throttled requests are not counted as requests served.
    const busyUsage = report.body.byCredential.find(
      (row: { accessKeyId: string }) => row.accessKeyId === busy.accessKeyId,
    );
    expect(busyUsage.requests).toBe(3);
    const metrics = await (await fetch(`${gw.metricsUrl}/metrics`)).text();
    expect(metrics).toContain(
      'gateway_organisation_limited_requests_total{organisation="rate-credential",limit="credential_rate"} 2',
    );
    expect(metrics).toMatch(/gateway_s3_refusals_total\{reason="rate_limit"\} [1-9]/);
  });

  it("refuse what the organisation's credentials send together over its burst", async () => {
    const tenant = await addOrganisation(admin, 'rate-organisation');
    expect((await tenant.owner.post('/v1/buckets', { name: 'rate-organisation' })).status).toBe(201);
    const first = await credential(tenant.owner);
    const second = await credential(tenant.owner);
    await pathStyleClient(gw, first).send(
      new PutObjectCommand({ Bucket: 'rate-organisation', Key: 'a.txt', Body: 'hello' }),
    );
    // The organisation's rate is the platform admins' to set.
    expectProblem(
      await tenant.owner.patch('/v1/organisation', { limits: { requestsPerSecond: 1 } }),
      403,
      'platform_admin_required',
    );
    const set = await admin.patch(`/v1/organisation?organisationId=${tenant.organisationId}`, {
      limits: { requestsPerSecond: 0.01, requestBurst: 4 },
    });
    expect(set.status, set.text).toBe(200);
    // A credential's rate may not exceed the organisation's.
    expectInvalidFields(
      await tenant.owner.patch('/v1/organisation', { limits: { credentialRequestsPerSecond: 1 } }),
      'limits.credentialRequestsPerSecond',
    );

    const byFirst = await getMany(await presignedGet(first, 'rate-organisation', 'a.txt'), 2);
    const bySecond = await getMany(await presignedGet(second, 'rate-organisation', 'a.txt'), 3);
    expect([...byFirst, ...bySecond].map((outcome) => outcome.status)).toEqual([200, 200, 200, 200, 503]);
    const refused = bySecond[2];
    expect(refused?.code).toBe('SlowDown');
    const response = await fetch(await presignedGet(second, 'rate-organisation', 'a.txt'));
    expect(parseS3Error(await response.text()).message).toBe(
      'Please reduce your request rate: the organisation is over its requests-per-second limit.',
    );

    const report = await tenant.owner.get('/v1/organisation/usage');
    expect(report.body.requestRates).toMatchObject({
      organisation: { requestsPerSecond: 0.01, burst: 4 },
      throttledRequests: 2,
    });
  });
});
