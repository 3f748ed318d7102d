/**
 * undici's connection pool on its own, with the one convenience method the gateway calls
 * (`request`, for its own small calls to the store; forwarding uses `dispatch`). The package's entry
 * point also loads fetch, WebSocket, EventSource, caches, mocks and proxy agents, none of which the
 * gateway uses: about 3 MiB of heap and 14 MiB of RSS in every storage worker, and heap that every
 * full garbage collection marks (while streaming, one runs for every few dozen megabytes of socket
 * buffers). undici publishes no "exports" map, so its modules are addressed by path; the types are
 * the package's own, and every test that reaches the store goes through here.
 */
import { createRequire } from 'node:module';
import type { Pool as UndiciPool } from 'undici';

const require = createRequire(import.meta.url);

const BarePool = require('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
const apiRequest = require('undici/lib/api/api-request.js') as UndiciPool['request'];

export class Pool extends BarePool {}
// What undici's entry point does for every dispatcher (Object.assign(Dispatcher.prototype, api)),
// done for this class only.
Object.defineProperty(Pool.prototype, 'request', { value: apiRequest, writable: true, configurable: true });
