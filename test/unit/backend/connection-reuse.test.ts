import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { BackendConnection } from '../../../src/backend/connection.js';

/** A store that answers every HEAD with an object's length and no body, and counts its connections. */
let store: http.Server;
let connections = 0;
let connection: BackendConnection;

beforeAll(async () => {
  store = http.createServer((request, response) => {
    response.writeHead(request.method === 'HEAD' ? 200 : 204, { 'content-length': '4096' });
    response.end();
  });
  store.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
  const { port } = store.address() as AddressInfo;
  connection = new BackendConnection(
    {
      endpoint: new URL(`http://127.0.0.1:${port}`),
      region: 'us-east-1',
      credentials: { accessKeyId: 'backend', secretAccessKey: 'backend-secret' },
    },
    { timeoutMs: 5_000 },
  );
});

afterAll(async () => {
  await connection.close();
  await new Promise<void>((resolve) => store.close(() => resolve()));
});

const head = { method: 'HEAD', path: '/bucket/key', query: [], headers: {} };

/** undici hands a connection on to the next request a turn of the event loop after its answer. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Forwards a HEAD as the data plane does (dispatch), resolving with the status once the answer ended. */
function dispatchHead(): Promise<number> {
  return new Promise((resolve, reject) => {
    let status = 0;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart: () => undefined,
      onResponseData: () => undefined,
      onResponseStart: (_controller, statusCode) => {
        status = statusCode;
      },
      onResponseEnd: () => resolve(status),
      onResponseError: (_controller, error) => reject(error),
    };
    connection.dispatch(head, null, handler);
  });
}

describe('the connection to the store', () => {
  it('keeps one connection across HEADs, the gateway’s own and forwarded ones (undici closes it after each by default)', async () => {
    const before = connections;
    for (let index = 0; index < 3; index += 1) {
      const answer = await connection.call(head, { maxBytes: 0 });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-length']).toBe('4096');
      await nextTurn();
      expect(await dispatchHead()).toBe(200);
      await nextTurn();
    }
    expect(connections - before).toBe(1);
  });
});
