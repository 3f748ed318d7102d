/**
 * The control plane in front of an object store that refuses connections: the operations that need
 * the store answer 502 backend_unavailable (problem+json, the detail the OpenAPI document shows) at
 * once, change nothing, and the rest of the control plane keeps working.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, type ControlClient } from '../../support/control-plane.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { expectProblem } from '../../support/problems.js';

let gateway: TestGateway;
let admin: ControlClient;

/** A loopback port nothing listens on: bound for a moment, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  gateway = await startTestGateway({
    GATEWAY_BACKEND_URL: `http://127.0.0.1:${await closedPort()}`,
    GATEWAY_BACKEND_ACCESS_KEY_ID: 'backend-key',
    GATEWAY_BACKEND_SECRET_ACCESS_KEY: 'backend-secret',
    GATEWAY_BACKEND_TIMEOUT_SECONDS: '1',
  });
  admin = await login(gateway.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
});
afterAll(async () => {
  await gateway?.stop();
});

describe('a control plane whose object store does not answer', () => {
  it('answers a bucket creation with 502 backend_unavailable and records no bucket', async () => {
    const problem = expectProblem(
      await admin.post('/v1/buckets', { name: 'unreachable-store' }),
      502,
      'backend_unavailable',
    );
    expect(problem.detail).toBe('The object store did not complete the operation.');
    expect((await admin.get('/v1/buckets/unreachable-store')).status).toBe(404);
  });

  it('keeps answering what needs only the database', async () => {
    expect((await admin.get('/v1/me')).status).toBe(200);
    expect((await admin.get('/v1/buckets')).status).toBe(200);
  });
});
