import http from 'node:http';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { pathStyleClient } from '../support/s3/clients.js';
import { createBucket } from '../support/s3/fixtures.js';
import { sendRaw } from '../support/s3/raw-requests.js';

describe('liveness probe on the storage listener', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
    await createBucket(gw, 'probe-bucket', { public: true });
  });
  afterAll(() => gw.stop());

  it('answers 200 without a User-Agent, a signature, the database or the backend, and stays out of the request metrics', async () => {
    const response = await sendRaw(gw.s3Url, { method: 'GET', target: '/_gateway/live' });
    expect(response.status).toBe(200);
    expect(response.body).toBe('live\n');
    const head = await sendRaw(gw.s3Url, { method: 'HEAD', target: '/_gateway/live' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const metrics = await (await fetch(`${gw.metricsUrl}/metrics`)).text();
    expect(metrics).not.toMatch(/gateway_s3_requests_total\{[^}]*\} [1-9]/);
  });

  it('does not shadow an object of a virtual-hosted bucket', async () => {
    const port = new URL(gw.s3Url).port;
    const response = await sendRaw(gw.s3Url, {
      method: 'GET',
      target: '/_gateway/live',
      headers: { host: `probe-bucket.${gw.config.s3.domain}:${port}`, 'user-agent': 'probe-test' },
    });
    expect(response.status).toBe(404);
    expect(response.body).toContain('<Code>NoSuchKey</Code>');
  });
});

describe('graceful shutdown', () => {
  it('stops accepting new connections but lets an in-flight download finish', async () => {
    const gw = await startTestGateway();
    let stopped = false;
    try {
      await createBucket(gw, 'draining');
      const s3 = pathStyleClient(gw);
      const size = 8 * 1024 * 1024;
      await s3.send(
        new PutObjectCommand({ Bucket: 'draining', Key: 'big.bin', Body: Buffer.alloc(size, 7) }),
      );
      const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'draining', Key: 'big.bin' }), {
        expiresIn: 60,
      });

      // Start the download and read it slowly, so it is still streaming when shutdown begins.
      const received = new Promise<number>((resolve, reject) => {
        http
          .get(url, { agent: false }, (response) => {
            let bytes = 0;
            response.on('data', (chunk: Buffer) => {
              bytes += chunk.length;
              response.pause();
              setTimeout(() => response.resume(), 2);
            });
            response.on('end', () => resolve(bytes));
            response.on('error', reject);
          })
          .on('error', reject);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));

      const stopping = gw.stop();
      stopped = true;
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(fetch(`${gw.s3Url}/_gateway/live`)).rejects.toThrow();

      expect(await received).toBe(size);
      await stopping;
    } finally {
      if (!stopped) await gw.stop();
    }
  });

  it('drains first: readiness answers 503 while the listeners still serve, then they close and an in-flight download still completes', async () => {
    const gw = await startTestGateway({
      GATEWAY_SHUTDOWN_DRAIN_SECONDS: '1',
      GATEWAY_SHUTDOWN_GRACE_SECONDS: '10',
    });
    let stopping: Promise<void> | null = null;
    try {
      await createBucket(gw, 'drain-first');
      const s3 = pathStyleClient(gw);
      const size = 8 * 1024 * 1024;
      await s3.send(
        new PutObjectCommand({ Bucket: 'drain-first', Key: 'big.bin', Body: Buffer.alloc(size, 3) }),
      );
      const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'drain-first', Key: 'big.bin' }), {
        expiresIn: 60,
      });
      expect((await fetch(`${gw.controlUrl}/v1/health`)).status).toBe(200);

      // The download reads its first chunk, then holds still until the listeners have closed.
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started: () => void = () => undefined;
      const firstChunk = new Promise<void>((resolve) => (started = resolve));
      const received = new Promise<number>((resolve, reject) => {
        http
          .get(url, { agent: false }, (response) => {
            let bytes = 0;
            response.on('data', (chunk: Buffer) => {
              if (bytes === 0) {
                response.pause();
                started();
                void gate.then(() => response.resume());
              }
              bytes += chunk.length;
            });
            response.on('end', () => resolve(bytes));
            response.on('error', reject);
          })
          .on('error', reject);
      });
      await firstChunk;

      // The test gateway audits its logs for secrets first, then stops the gateway: wait for the drain.
      stopping = gw.stop();
      while (!gw.gateway.context.lifecycle.draining) await new Promise((resolve) => setTimeout(resolve, 5));
      const stopStarted = Date.now();

      // During the drain: not ready, saying why, while both listeners still answer.
      const health = await fetch(`${gw.controlUrl}/v1/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({
        status: 'unavailable',
        checks: {
          database: { status: 'ok' },
          backend: { status: 'ok' },
          shutdown: { status: 'failing', error: 'the instance is shutting down' },
        },
      });
      const live = await fetch(`${gw.s3Url}/_gateway/live`);
      expect(live.status).toBe(200);
      expect(Date.now() - stopStarted).toBeLessThan(1000);

      // After the drain delay the listener stops accepting, with the download still in flight.
      const deadline = Date.now() + 5000;
      let refused = false;
      while (!refused && Date.now() < deadline) {
        refused = await fetch(`${gw.s3Url}/_gateway/live`, { headers: { connection: 'close' } }).then(
          () => false,
          () => true,
        );
        if (!refused) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(refused).toBe(true);
      expect(Date.now() - stopStarted).toBeGreaterThanOrEqual(1000);

      release();
      expect(await received).toBe(size);
      await stopping;
    } finally {
      if (stopping === null) await gw.stop();
    }
  });
});
