import http from 'node:http';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../support/control-plane.js';
import { eventually } from '../support/eventually.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { answersOnNewConnection } from '../support/listener.js';
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

/**
 * A download that reads its first chunk, then holds still until released: certainly in flight
 * while the gateway shuts down around it, however fast or slow the machine is.
 */
function heldDownload(url: string) {
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
  return { firstChunk, release, received };
}

/** The line the gateway logs as its listeners stop accepting (runtime.ts), after any drain delay. */
const LISTENERS_CLOSING = 'no new connections; waiting for in-flight requests';

function listenersClosing(gw: TestGateway): boolean {
  return gw.logs.some((line) => (JSON.parse(line) as { msg?: string }).msg === LISTENERS_CLOSING);
}

describe('graceful shutdown', () => {
  it('stops accepting new connections but lets an in-flight download finish', async () => {
    // A grace period far longer than the download needs (what is tested is that it may finish),
    // and shorter than the test's timeout, so a download that never ends fails with its error.
    const gw = await startTestGateway({ GATEWAY_SHUTDOWN_GRACE_SECONDS: '15' });
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

      const download = heldDownload(url);
      await download.firstChunk;

      const stopping = gw.stop();
      stopped = true;
      // The test gateway audits its logs before it stops the gateway: the listener closes after that.
      await eventually(
        'the storage listener refuses new connections',
        async () => !(await answersOnNewConnection(`${gw.s3Url}/_gateway/live`)),
      );

      download.release();
      expect(await download.received).toBe(size);
      await stopping;
    } finally {
      if (!stopped) await gw.stop();
    }
  });

  it('drains first: readiness answers 503 while the listeners still serve for the drain delay, then they close and an in-flight download still completes', async () => {
    // The drain's wait is the test's to end (its length is unit-tested: test/unit/server/lifecycle.test.ts),
    // so the checks during the drain cannot race its end on a busy machine.
    const drainSeconds = 3;
    const askedDrains: number[] = [];
    let endDrain: () => void = () => undefined;
    const gw = await startTestGateway(
      { GATEWAY_SHUTDOWN_DRAIN_SECONDS: String(drainSeconds), GATEWAY_SHUTDOWN_GRACE_SECONDS: '15' },
      {
        drainDelay: (ms) => {
          askedDrains.push(ms);
          return new Promise((resolve) => (endDrain = resolve));
        },
      },
    );
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
      const control = new ControlClient(gw.controlUrl);
      expect((await control.get('/v1/health')).status).toBe(200);

      // The download reads its first chunk, then holds still until the listeners have closed.
      const download = heldDownload(url);
      await download.firstChunk;

      stopping = gw.stop();
      // The test gateway audits its logs for secrets first, then stops the gateway: wait for the drain.
      await eventually('shutdown began draining', () => gw.gateway.context.lifecycle.draining);
      // It waits the configured delay, once.
      expect(askedDrains).toEqual([drainSeconds * 1000]);

      // During the drain: not ready, saying why, while both listeners still answer.
      const health = await control.get('/v1/health');
      expect(health.status).toBe(503);
      expect(health.body).toEqual({
        status: 'unavailable',
        checks: {
          database: { status: 'ok' },
          backend: { status: 'ok' },
          shutdown: { status: 'failing', error: 'the instance is shutting down' },
        },
      });
      const live = await fetch(`${gw.s3Url}/_gateway/live`, { headers: { connection: 'close' } });
      expect(live.status).toBe(200);
      expect(listenersClosing(gw)).toBe(false);

      // Once the drain delay ends the listener stops accepting, with the download still in flight.
      endDrain();
      await eventually(
        'the storage listener refuses new connections',
        async () => !(await answersOnNewConnection(`${gw.s3Url}/_gateway/live`)),
      );
      expect(listenersClosing(gw)).toBe(true);

      download.release();
      expect(await download.received).toBe(size);
      await stopping;
    } finally {
      endDrain();
      if (stopping === null) await gw.stop();
    }
  });
});
