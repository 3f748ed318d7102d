/**
 * A request Node's parser refuses is answered with an S3 error document on the raw socket, which
 * is then half-closed; a client that never closes its side (and never writes again) is let go
 * after a short linger, so it cannot hold the connection, and a graceful stop, open.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { answerClientError } from '../../../src/s3/answers/client-error.js';
import { eventually } from '../../support/eventually.js';

let server: http.Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

function openConnections(target: http.Server): Promise<number> {
  return new Promise((resolve, reject) =>
    target.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

/** A server whose parser's refusals are answered by answerClientError, closed after each test. */
async function answeringServer(): Promise<{ listening: http.Server; port: number }> {
  const listening = http.createServer(() => undefined);
  server = listening;
  listening.on('clientError', answerClientError);
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return { listening, port: (listening.address() as net.AddressInfo).port };
}

it('answers a malformed request, then lets go of a connection whose client keeps it open', async () => {
  const { listening, port } = await answeringServer();
  // allowHalfOpen: this client does not answer the server's FIN with its own, as some never do.
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  socket.on('error', () => undefined);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  socket.write('GET /bucket/key HTTP/1.1\r\nHost: x\r\nNot a header line\r\n\r\n');
  await ended;
  const answer = Buffer.concat(chunks).toString('latin1');
  expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  expect(answer).toContain('<Code>InvalidRequest</Code>');
  await eventually(
    'the server letting go of the half-closed connection',
    async () => (await openConnections(listening)) === 0,
    { intervalMs: 100 },
  );
  socket.destroy();
});

it('answers a HEAD whose headers are too large with the status and headers only', async () => {
  const { port } = await answeringServer();
  const socket = net.connect({ port, host: '127.0.0.1' });
  socket.on('error', () => undefined);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  socket.write(`HEAD /bucket/key HTTP/1.1\r\nHost: x\r\nx-padding: ${'a'.repeat(20_000)}\r\n\r\n`);
  await ended;
  const [head, body] = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n', 2);
  // RequestHeaderSectionTooLarge, S3's 400 for this.
  expect(head).toMatch(/^HTTP\/1\.1 400 /);
  expect(head).toMatch(/^content-length: 0$/im);
  expect(head).toMatch(/^x-amz-request-id: /im);
  expect(body).toBe('');
  socket.destroy();
});
