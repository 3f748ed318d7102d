/**
 * An object store that is down, refuses connections, resets them or never answers: the client gets
 * a 503 ServiceUnavailable S3 error document within the backend timeout, never a hang or a crash,
 * and the gateway keeps serving.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3_ERRORS } from '../../../src/s3/errors.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import { createBucket } from '../../support/s3/fixtures.js';

type Behaviour = 'hang' | 'reset';

let behaviour: Behaviour = 'hang';
let backend: http.Server;
let gateway: TestGateway;

beforeAll(async () => {
  backend = http.createServer((request) => {
    if (behaviour === 'reset') request.socket.destroy();
    // 'hang': read the request, never answer.
    else request.resume();
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  gateway = await startTestGateway({
    GATEWAY_BACKEND_URL: `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
    GATEWAY_BACKEND_ACCESS_KEY_ID: 'backend-key',
    GATEWAY_BACKEND_SECRET_ACCESS_KEY: 'backend-secret',
    GATEWAY_BACKEND_TIMEOUT_SECONDS: '1',
  });
  await createBucket(gateway, 'stranded', { inBackend: false });
});
afterAll(async () => {
  await gateway?.stop();
  backend.closeAllConnections();
  await new Promise((resolve) => backend.close(resolve));
});

const unavailable = {
  code: 'ServiceUnavailable',
  status: 503,
  message: S3_ERRORS.ServiceUnavailable.message,
};

async function backendErrors(kind: string): Promise<number> {
  const metrics = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
  return Number(
    new RegExp(`gateway_backend_errors_total\\{kind="${kind}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0,
  );
}

describe('an object store that does not answer', () => {
  it('a silent backend is 503 after the backend timeout, for reads and uploads', async () => {
    behaviour = 'hang';
    const s3 = pathStyleClient(gateway);
    const started = Date.now();
    await expectS3Error(s3.send(new GetObjectCommand({ Bucket: 'stranded', Key: 'k' })), unavailable);
    expect(Date.now() - started).toBeLessThan(5000);
    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: 'stranded', Key: 'k', Body: Buffer.alloc(100_000, 1) })),
      unavailable,
    );
    expect(await backendErrors('timeout')).toBeGreaterThanOrEqual(2);
  });

  it('a backend that resets connections is 503', async () => {
    behaviour = 'reset';
    await expectS3Error(
      pathStyleClient(gateway).send(new GetObjectCommand({ Bucket: 'stranded', Key: 'k' })),
      unavailable,
    );
    expect(await backendErrors('reset')).toBeGreaterThanOrEqual(1);
  });

  it('a backend that is down (connection refused) is 503, and the gateway keeps serving', async () => {
    backend.closeAllConnections();
    await new Promise((resolve) => backend.close(resolve));
    const s3 = pathStyleClient(gateway);
    await expectS3Error(s3.send(new GetObjectCommand({ Bucket: 'stranded', Key: 'k' })), unavailable);
    await expectS3Error(s3.send(new GetObjectCommand({ Bucket: 'stranded', Key: 'again' })), unavailable);
    expect(await backendErrors('unreachable')).toBeGreaterThanOrEqual(2);
  });
});
