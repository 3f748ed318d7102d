/** Bot protection set to `strict`: every request without a User-Agent is challenged, signed or not. */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { pathStyleClient } from '../../support/s3/clients.js';
import { createBucket } from '../../support/s3/fixtures.js';
import { sendRaw, sha256Hex, signedHeaders } from '../../support/s3/raw-requests.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ GATEWAY_BOT_PROTECTION: 'strict' });
  await createBucket(gateway, 'guarded');
  await pathStyleClient(gateway).send(new PutObjectCommand({ Bucket: 'guarded', Key: 'k', Body: 'v' }));
});
afterAll(async () => {
  await gateway?.stop();
});

it('challenges a correctly signed request that has no User-Agent, and serves it with one', async () => {
  const headers = await signedHeaders({
    credential: gateway.credential,
    method: 'GET',
    baseUrl: gateway.s3Url,
    path: '/guarded/k',
    payloadHash: sha256Hex(''),
  });
  const challenged = await sendRaw(gateway.s3Url, { method: 'GET', target: '/guarded/k', headers });
  expect(challenged.status).toBe(403);
  expect(challenged.headers['content-type']).toMatch(/^text\/html/);

  const served = await sendRaw(gateway.s3Url, {
    method: 'GET',
    target: '/guarded/k',
    headers: { ...headers, 'user-agent': 's3cmd/2.4.0' },
  });
  expect(served.status).toBe(200);
  expect(served.body).toBe('v');
});
