/**
 * Bot protection in its default mode (decisions.md): only requests with no signature at all and no
 * recognisable User-Agent get the HTML challenge page; signed requests go to verification whatever
 * their User-Agent, because real S3 tools send none.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { metricDeltas, scrapeMetrics } from '../../support/metrics.js';
import { pathStyleClient } from '../../support/s3/clients.js';
import { createBucket } from '../../support/s3/fixtures.js';
import { describeRawError, sendRaw, sha256Hex, signedHeaders } from '../../support/s3/raw-requests.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
  await createBucket(gateway, 'open-house', { public: true });
  await pathStyleClient(gateway).send(
    new PutObjectCommand({ Bucket: 'open-house', Key: 'index.txt', Body: 'welcome' }),
  );
});
afterAll(async () => {
  await gateway?.stop();
});

function expectChallenge(response: { status: number; headers: Record<string, unknown>; body: string }): void {
  expect(response.status).toBe(403);
  expect(response.headers['content-type']).toMatch(/^text\/html/);
  expect(response.body).toMatch(/^<!DOCTYPE html>/);
  expect(response.body).not.toContain('<Error>');
  expect(response.headers['x-amz-request-id']).toMatch(/^[0-9A-F]{16}$/);
}

describe('default bot protection (anonymous)', () => {
  it('challenges an unsigned request without a User-Agent with an HTML page, even for a public object', async () => {
    const refusals = 'gateway_s3_refusals_total{reason="bot_protection"}';
    const before = await scrapeMetrics(gateway.metricsUrl);
    expectChallenge(await sendRaw(gateway.s3Url, { method: 'GET', target: '/open-house/index.txt' }));
    expectChallenge(
      await sendRaw(gateway.s3Url, {
        method: 'GET',
        target: '/open-house/index.txt',
        headers: { 'user-agent': '-' },
      }),
    );
    expect(metricDeltas(before, await scrapeMetrics(gateway.metricsUrl), [refusals])).toEqual({
      [refusals]: 2,
    });
  });

  it('lets an unsigned request with a User-Agent through to the endpoint', async () => {
    const allowed = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/open-house/index.txt',
      headers: { 'user-agent': 'Mozilla/5.0' },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toBe('welcome');
    const refused = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/',
      headers: { 'user-agent': 'curl/8' },
    });
    expect(describeRawError(refused)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
      requestIdMatches: true,
    });
  });

  it('verifies signed requests without a User-Agent, header-signed and presigned', async () => {
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'GET',
      baseUrl: gateway.s3Url,
      path: '/open-house/index.txt',
      payloadHash: sha256Hex(''),
    });
    const signed = await sendRaw(gateway.s3Url, { method: 'GET', target: '/open-house/index.txt', headers });
    expect(signed.status).toBe(200);

    const url = await getSignedUrl(
      pathStyleClient(gateway),
      new GetObjectCommand({ Bucket: 'open-house', Key: 'index.txt' }),
    );
    const presigned = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: url.slice(gateway.s3Url.length),
    });
    expect(presigned.status).toBe(200);
    expect(presigned.body).toBe('welcome');

    const forged = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/open-house/index.txt',
      headers: {
        ...headers,
        authorization: headers.authorization!.replace(/Signature=\w+/, `Signature=${'0'.repeat(64)}`),
      },
    });
    expect(describeRawError(forged)).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
  });
});
