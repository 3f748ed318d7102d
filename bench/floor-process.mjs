// The floor: the least a Node reverse proxy does, to hold the gateway against. A bare
// http-proxy-3 (the gateway's chosen proxy library) with a keep-alive agent in front of the
// benchmark's backend: no authentication, no re-signing, no logging, no metrics. Whatever the
// gateway spends above this is the price of its own work.
//
// Plain JavaScript run by `node` directly, like the compiled gateway (`node .bench-dist/main.js`):
// no TypeScript loader or source-map support sits in this process, so nothing but the proxy is
// counted against it.
//
// Started by bench/children.ts with fork(): argv[2] is the backend's base URL; it tells its
// parent { type: 'ready', url } over IPC and exits when the IPC channel closes.
import http from 'node:http';
import process from 'node:process';
import { createProxyServer } from 'http-proxy-3';

const backendUrl = process.argv[2];
if (backendUrl === undefined) throw new Error('usage: floor-process.mjs BACKEND_URL');

// http-proxy-3's default (agent: false) sends `Connection: close` upstream, so every request
// would open a new backend connection; a pooled keep-alive agent is what any real proxy uses.
const agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 60_000 });
const proxy = createProxyServer({ target: backendUrl, agent });
proxy.on('error', (_error, _request, response) => {
  // A failed request must show in the load generator's error count, never hang it.
  if (response instanceof http.ServerResponse && !response.headersSent) response.writeHead(502);
  response.end();
});

const server = http.createServer({ keepAliveTimeout: 120_000, requestTimeout: 0 }, (request, response) =>
  proxy.web(request, response),
);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}` });
});
process.on('disconnect', () => process.exit(0));
