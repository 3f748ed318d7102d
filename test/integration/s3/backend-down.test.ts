/**
 * An object store that is down, refuses connections, resets them or never answers: the client gets
 * a 503 ServiceUnavailable S3 error document within the backend timeout, never a hang or a crash,
 * and the gateway keeps serving. A slow one whose answer arrives after the client hung up must not
 * crash it either. An error answer without an S3 error document still reaches the client as one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import { createBucket } from '../../support/s3/fixtures.js';
import { describeRawError, sendOnSocket, sendRaw } from '../../support/s3/raw-requests.js';

type Behaviour = 'hang' | 'reset' | 'slow' | 'bare';

/**
 * The 'slow' backend's answers, held until the test releases them (once their clients are gone);
 * each resolves once its answer went out or its connection closed (the gateway may have given up).
 */
const held: (() => Promise<void>)[] = [];
/** Once set, the 'slow' backend answers at once. */
let slowAnswersAtOnce = false;

let behaviour: Behaviour = 'hang';
let backend: http.Server;
let gateway: TestGateway;

beforeAll(async () => {
  backend = http.createServer((request, response) => {
    if (behaviour === 'reset') request.socket.destroy();
    else if (behaviour === 'bare') {
      // An error without an S3 error document, as a load balancer or a terse store sends it.
      request.resume();
      const status = Number(/status-(\d{3})/.exec(request.url ?? '')?.[1] ?? 500);
      response.writeHead(status, { 'content-type': 'text/html' });
      response.end(request.method === 'HEAD' ? undefined : `<html><body>${status}</body></html>`);
    } else if (behaviour === 'slow') {
      request.resume();
      // An object, or an S3 error document: the two ways an answer is relayed.
      const missing = (request.url ?? '').includes('missing');
      const closed = new Promise<void>((resolve) => response.once('close', resolve));
      const answer = () => {
        response.writeHead(missing ? 404 : 200, {
          'content-type': missing ? 'application/xml' : 'text/plain',
        });
        response.end(missing ? '<Error><Code>NoSuchKey</Code></Error>' : 'late');
        return closed;
      };
      if (slowAnswersAtOnce) void answer();
      else held.push(answer);
    }
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
  await createBucket(gateway, 'stranded-public', { inBackend: false, public: true });
});
afterAll(async () => {
  await gateway?.stop();
  backend.closeAllConnections();
  await new Promise((resolve) => backend.close(resolve));
});

const unavailable = {
  code: 'ServiceUnavailable',
  status: 503,
  message: 'The object store behind this endpoint is unavailable. Please retry.',
};

async function backendErrors(kind: string): Promise<number> {
  const metrics = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
  return Number(
    new RegExp(`gateway_backend_errors_total\\{kind="${kind}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0,
  );
}

describe('an object store error without an S3 error document', () => {
  it('becomes the S3 error document for its status, with the request id; HEAD stays body-less', async () => {
    behaviour = 'bare';
    const expected: Record<string, { code: string; status: number; message: string }> = {
      'status-502': unavailable,
      'status-503': unavailable,
      'status-403': { code: 'AccessDenied', status: 403, message: 'Access Denied' },
      'status-404': { code: 'NoSuchKey', status: 404, message: 'The specified key does not exist.' },
      'status-416': { code: 'InvalidRange', status: 416, message: 'The requested range is not satisfiable.' },
      'status-429': { code: 'SlowDown', status: 503, message: 'Please reduce your request rate.' },
      'status-409': {
        code: 'InvalidRequest',
        status: 400,
        message: 'The object store refused the request.',
      },
    };
    for (const [key, error] of Object.entries(expected)) {
      const response = await sendRaw(gateway.s3Url, {
        method: 'GET',
        target: `/stranded-public/${key}`,
        headers: { 'user-agent': 'curl/8.5.0' },
      });
      expect(response.headers['content-type'], key).toBe('application/xml');
      expect(describeRawError(response), key).toEqual({ ...error, requestIdMatches: true });
    }
    const head = await sendRaw(gateway.s3Url, {
      method: 'HEAD',
      target: '/stranded-public/status-404',
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    expect({ status: head.status, body: head.body }).toEqual({ status: 404, body: '' });
  });
});

describe('an object store that does not answer', () => {
  it('a silent backend is 503 after the backend timeout, for reads and uploads', async () => {
    behaviour = 'hang';
    const s3 = pathStyleClient(gateway);
    // The backend timeout (1 s here) ends each request, counted as a timeout: no hang, and no other
    // cause (the client's own patience is unbounded, so a hang would end only at the test's timeout).
    const before = await backendErrors('timeout');
    await expectS3Error(s3.send(new GetObjectCommand({ Bucket: 'stranded', Key: 'k' })), unavailable);
    expect(await backendErrors('timeout')).toBe(before + 1);
    await expectS3Error(
      s3.send(new PutObjectCommand({ Bucket: 'stranded', Key: 'k', Body: Buffer.alloc(100_000, 1) })),
      unavailable,
    );
    expect(await backendErrors('timeout')).toBe(before + 2);
  });

  it('a slow answer that finds its client gone does not take the gateway down', async () => {
    behaviour = 'slow';
    const host = new URL(gateway.s3Url).host;
    for (const method of ['GET', 'HEAD']) {
      for (const key of ['here', 'missing']) {
        // The request, then, once it reached the store, the end of the connection: the answer will
        // have nowhere to go.
        const holding = held.length + 1;
        await sendOnSocket(
          gateway.s3Url,
          `${method} /stranded-public/${key} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: hang-up/1\r\n\r\n`,
          { hangUpWhen: () => eventually('the store holds the request', () => held.length === holding) },
        );
      }
    }
    // Only now, with every client gone, does the store answer.
    await Promise.all(held.splice(0).map((answer) => answer()));
    slowAnswersAtOnce = true;
    const served = await sendRaw(gateway.s3Url, {
      method: 'GET',
      target: '/stranded-public/here',
      headers: { 'user-agent': 'still-there/1' },
    });
    expect({ status: served.status, body: served.body }).toEqual({ status: 200, body: 'late' });
  });

  it('a backend that resets connections is 503', async () => {
    behaviour = 'reset';
    const before = await backendErrors('reset');
    await expectS3Error(
      pathStyleClient(gateway).send(new GetObjectCommand({ Bucket: 'stranded', Key: 'k' })),
      unavailable,
    );
    expect((await backendErrors('reset')) - before).toBe(1);
  });

  it('a backend that is down (connection refused) is 503, and the gateway keeps serving', async () => {
    backend.closeAllConnections();
    await new Promise((resolve) => backend.close(resolve));
    const s3 = pathStyleClient(gateway);
    const before = await backendErrors('unreachable');
    await expectS3Error(s3.send(new GetObjectCommand({ Bucket: 'stranded', Key: 'k' })), unavailable);
    await expectS3Error(s3.send(new GetObjectCommand({ Bucket: 'stranded', Key: 'again' })), unavailable);
    expect((await backendErrors('unreachable')) - before).toBe(2);
  });
});
