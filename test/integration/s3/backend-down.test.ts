/**
 * An object store that is down, refuses connections, resets them or never answers: the client gets
 * a 503 ServiceUnavailable S3 error document within the backend timeout, never a hang or a crash,
 * and the gateway keeps serving. A slow one whose answer arrives after the client hung up must not
 * crash it either. An error answer without an S3 error document (not XML, XML that is not one, or
 * too large to be one) still reaches the client as one, with a message and nothing of the store.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompleteMultipartUploadCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { expectS3Error, pathStyleClient } from '../../support/s3/clients.js';
import { createBucket } from '../../support/s3/fixtures.js';
import { describeRawError, sendOnSocket, sendRaw } from '../../support/s3/raw-requests.js';

type Behaviour = 'hang' | 'reset' | 'slow' | 'bare' | 'xml';

/** An error document padded past what the gateway reads as one (256 KiB), naming the store. */
const HUGE_ERROR_DOCUMENT = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message></Message><RequestId>tx-store-1</RequestId><HostId>store-host-id</HostId><Padding>${'p'.repeat(300 * 1024)}</Padding></Error>`;

/**
 * The 'xml' backend's error answers, typed as XML but no usable S3 error document, chosen by the
 * key (`<variant>-status-<NNN>`); its ListParts lists no parts, so a completion is sent on.
 */
function answerXml(request: http.IncomingMessage, response: http.ServerResponse): void {
  request.resume();
  const url = new URL(request.url ?? '/', 'http://store');
  if (request.method === 'GET' && url.searchParams.has('uploadId')) {
    response.writeHead(200, { 'content-type': 'application/xml' });
    response.end('<ListPartsResult><IsTruncated>false</IsTruncated></ListPartsResult>');
    return;
  }
  const status = Number(/status-(\d{3})/.exec(url.pathname)?.[1] ?? 500);
  const variant = /\/([a-z-]+)-status-/.exec(url.pathname)?.[1];
  if (variant === 'huge-chunked') {
    response.writeHead(status, { 'content-type': 'application/xml', 'x-rgw-object-type': 'Normal' });
    // Written in pieces: the gateway learns the size only as the answer arrives.
    for (let at = 0; at < HUGE_ERROR_DOCUMENT.length; at += 64 * 1024)
      response.write(HUGE_ERROR_DOCUMENT.slice(at, at + 64 * 1024));
    response.end();
    return;
  }
  const body =
    variant === 'huge'
      ? HUGE_ERROR_DOCUMENT
      : variant === 'other'
        ? '<?xml version="1.0" encoding="UTF-8"?><Status><HostId>store-host-id</HostId></Status>'
        : '';
  response.writeHead(status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
  });
  response.end(request.method === 'HEAD' ? undefined : body);
}

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
    else if (behaviour === 'xml') answerXml(request, response);
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

describe('an object store error typed as XML that is no S3 error document', () => {
  const notFound = { code: 'NoSuchKey', status: 404, message: 'The specified key does not exist.' };
  const read = (key: string) =>
    sendRaw(gateway.s3Url, {
      method: 'GET',
      target: `/stranded-public/${key}`,
      headers: { 'user-agent': 'curl/8.5.0' },
    });

  it("becomes the catalogue's error for its status, with a message, when the body is empty or another document", async () => {
    behaviour = 'xml';
    const expected: Record<string, { code: string; status: number; message: string }> = {
      'empty-status-404': notFound,
      'empty-status-403': { code: 'AccessDenied', status: 403, message: 'Access Denied' },
      'other-status-404': notFound,
      'other-status-500': unavailable,
      'other-status-409': {
        code: 'InvalidRequest',
        status: 400,
        message: 'The object store refused the request.',
      },
    };
    for (const [key, error] of Object.entries(expected)) {
      const response = await read(key);
      expect(response.headers['content-type'], key).toBe('application/xml');
      expect(describeRawError(response), key).toEqual({ ...error, requestIdMatches: true });
      expect(response.body, key).not.toContain('store-host-id');
    }
  });

  it("becomes the catalogue's error when it is too large to be an error document, announced or not, naming nothing of the store", async () => {
    behaviour = 'xml';
    for (const key of ['huge-status-404', 'huge-chunked-status-404']) {
      const response = await read(key);
      expect(describeRawError(response), key).toEqual({ ...notFound, requestIdMatches: true });
      expect(response.body, key).not.toMatch(/store-host-id|tx-store-1|Padding/);
      expect(response.headers['x-rgw-object-type'], key).toBeUndefined();
    }
    // The gateway is no worse for it.
    expect(describeRawError(await read('empty-status-404'))).toEqual({ ...notFound, requestIdMatches: true });
  });

  it("answers a completion the store refuses that way with the catalogue's error", async () => {
    behaviour = 'xml';
    const completion = (key: string) =>
      pathStyleClient(gateway).send(
        new CompleteMultipartUploadCommand({
          Bucket: 'stranded',
          Key: key,
          UploadId: 'upload-1',
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"0123456789abcdef0123456789abcdef"' }] },
        }),
      );
    await expectS3Error(completion('other-status-500'), unavailable);
    await expectS3Error(completion('empty-status-409'), {
      code: 'InvalidRequest',
      status: 400,
      message: 'The object store refused the request.',
    });
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
