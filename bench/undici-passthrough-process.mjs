// The undici pass-through: an informational reference beside the floor. A bare proxy on the
// upstream client the gateway uses, undici's Pool.dispatch, with a keep-alive pool to the
// benchmark's backend and a node:http server in front: it forwards the method, path and headers
// (hop-by-hop ones removed), streams the request body, and writes the answer's status, headers
// and chunks straight to the client's response, pausing the upstream while that response is
// full. No authentication, no re-signing, no logging, no metrics. Against the floor (bare
// http-proxy-3) it shows what the chosen upstream client costs; the gateway's CPU above it is the
// gateway's own work.
//
// Plain JavaScript run by `node` directly, like the floor and the compiled gateway.
//
// Started by bench/children.ts like the floor: argv[2] is the backend's base URL; it tells its
// parent { type: 'ready', url } over IPC and exits when the IPC channel closes.
import http from 'node:http';
import process from 'node:process';
import { URL } from 'node:url';
import { Pool } from 'undici';

const backendUrl = process.argv[2];
if (backendUrl === undefined) throw new Error('usage: undici-passthrough-process.mjs BACKEND_URL');

// The same pool settings as the gateway's backend connection (src/backend/connection.ts).
const pool = new Pool(new URL(backendUrl).origin, {
  keepAliveTimeout: 60_000,
  keepAliveTimeoutThreshold: 2_000,
  pipelining: 1,
});

// Headers that describe one connection, not the message (RFC 9110 §7.6.1), and Expect, which
// node:http has already answered with 100 Continue before the request reaches the handler.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

/** `headers` without hop-by-hop ones, nor those the Connection header names. */
function endToEnd(headers) {
  const named = headers.connection;
  const listed =
    typeof named === 'string' && named !== 'keep-alive' && named !== 'close'
      ? new Set(named.split(',').map((token) => token.trim().toLowerCase()))
      : null;
  const kept = {};
  for (const name in headers) {
    if (HOP_BY_HOP.has(name) || listed?.has(name)) continue;
    kept[name] = headers[name];
  }
  return kept;
}

/** undici's handler for one forwarded request: relays the answer to `response`. */
class PassThrough {
  #controller = null;
  #done = false;

  constructor(response) {
    this.response = response;
    // A client that hung up before the answer was over: the upstream request goes too.
    response.once('close', () => {
      if (!this.#done) this.#controller?.abort(new Error('client went away'));
    });
  }

  onRequestStart(controller) {
    this.#controller = controller;
  }

  onResponseStart(controller, status, headers) {
    this.response.writeHead(status, endToEnd(headers));
    this.response.on('drain', () => controller.resume());
  }

  onResponseData(controller, chunk) {
    if (!this.response.write(chunk)) controller.pause();
  }

  onResponseEnd() {
    this.#done = true;
    this.response.end();
  }

  onResponseError(_controller, _error) {
    this.#done = true;
    // A failed request must show in the load generator's error count, never hang it.
    if (this.response.headersSent) this.response.destroy();
    else {
      this.response.writeHead(502);
      this.response.end();
    }
  }
}

function hasBody(request) {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const server = http.createServer({ keepAliveTimeout: 120_000, requestTimeout: 0 }, (request, response) => {
  pool.dispatch(
    {
      method: request.method,
      path: request.url,
      headers: endToEnd(request.headers),
      body: hasBody(request) ? request : null,
    },
    new PassThrough(response),
  );
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` });
});
process.on('disconnect', () => process.exit(0));
