/**
 * The gateway's connections to the object store. One keep-alive agent is shared by the proxy and
 * the gateway's own backend calls (ListParts): http-proxy-3 would otherwise send
 * `Connection: close` on every upstream request, and connection setup is a large share of a
 * proxy's CPU.
 */
import http from 'node:http';
import https from 'node:https';
import type { BackendRequestSpec, BackendSigner } from './backend-signer.js';

export type BackendAgent = http.Agent;

export function createBackendAgent(endpoint: URL): BackendAgent {
  const options = { keepAlive: true, keepAliveMsecs: 1000, maxFreeSockets: 64, scheduling: 'lifo' as const };
  return endpoint.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

export class BackendUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BackendUnavailableError';
  }
}

export interface BackendAnswer {
  readonly status: number;
  readonly body: Buffer;
}

/**
 * A small signed request of the gateway's own (not a client's), read whole up to `maxBytes`.
 * Unreachable, timed out or oversized answers reject with {@link BackendUnavailableError}.
 */
export async function backendCall(
  endpoint: URL,
  agent: BackendAgent,
  signer: BackendSigner,
  spec: BackendRequestSpec,
  options: { timeoutMs: number; maxBytes: number },
): Promise<BackendAnswer> {
  const signed = await signer.sign(spec);
  const transport = endpoint.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      {
        protocol: endpoint.protocol,
        hostname: endpoint.hostname.replace(/^\[|\]$/g, ''),
        port: endpoint.port === '' ? undefined : Number(endpoint.port),
        method: spec.method,
        path: signed.target,
        headers: signed.headers,
        agent,
        timeout: options.timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            response.destroy();
            reject(new BackendUnavailableError('backend answer too large'));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
        response.on('error', (error) => reject(new BackendUnavailableError(error.message, { cause: error })));
      },
    );
    request.on('timeout', () => request.destroy(new Error('backend timed out')));
    request.on('error', (error) => reject(new BackendUnavailableError(error.message, { cause: error })));
    request.end();
  });
}
