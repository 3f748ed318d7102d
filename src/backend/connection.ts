/**
 * The storage endpoint's connections to the object store. One keep-alive agent is shared by the
 * proxy and the gateway's own backend calls (ListParts, CompleteMultipartUpload, HEAD): http-proxy-3 would
 * otherwise send `Connection: close` on every upstream request, and connection setup is a large
 * share of a proxy's CPU.
 */
import http from 'node:http';
import https from 'node:https';
import type { BackendRequestSpec, BackendSigner } from './signer.js';

export type BackendAgent = http.Agent;

export function createBackendAgent(endpoint: URL): BackendAgent {
  const options = { keepAlive: true, keepAliveMsecs: 1000, maxFreeSockets: 64, scheduling: 'lifo' as const };
  return endpoint.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

/** How the object store failed to answer (the `kind` of the backend error metric). */
export type BackendFailureKind = 'unreachable' | 'timeout' | 'reset';

export class BackendUnavailableError extends Error {
  readonly kind: BackendFailureKind;

  constructor(message: string, options: { kind: BackendFailureKind; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'BackendUnavailableError';
    this.kind = options.kind;
  }
}

const UNREACHABLE: readonly string[] = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
];

/** Any failure on a backend connection, as a {@link BackendUnavailableError} of the right kind. */
export function toBackendUnavailable(error: unknown): BackendUnavailableError {
  if (error instanceof BackendUnavailableError) return error;
  const { code, message } = error as NodeJS.ErrnoException;
  const kind = UNREACHABLE.includes(code ?? '') ? 'unreachable' : code === 'ETIMEDOUT' ? 'timeout' : 'reset';
  return new BackendUnavailableError(message, { kind, cause: error });
}

export interface BackendRequestOptions {
  /** Idle time allowed on the connection, while waiting for the answer and while reading it. */
  readonly timeoutMs: number;
  /** The request body; its `content-length` must be among the spec's (signed) headers. */
  readonly body?: Buffer;
}

/**
 * A signed request of the gateway's own (not a client's), resolved when the answer's head
 * arrives. The body is the caller's to read; a connection that goes idle for `timeoutMs` while it
 * does ends the answer with a `timeout` {@link BackendUnavailableError}, and unreachable or
 * silent backends reject with one.
 */
export async function backendRequest(
  endpoint: URL,
  agent: BackendAgent,
  signer: BackendSigner,
  spec: BackendRequestSpec,
  options: BackendRequestOptions,
): Promise<http.IncomingMessage> {
  const signed = await signer.sign(spec);
  const transport = endpoint.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answer: http.IncomingMessage | null = null;
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
        answer = response;
        resolve(response);
      },
    );
    request.on('timeout', () => {
      const error = new BackendUnavailableError('backend timed out', { kind: 'timeout' });
      answer?.destroy(error);
      request.destroy(error);
    });
    request.on('error', (error) => reject(toBackendUnavailable(error)));
    request.end(options.body);
  });
}

export interface BackendAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** True for a chunk of nothing but XML whitespace. */
function isWhitespace(chunk: Buffer): boolean {
  return (
    chunk.length > 0 &&
    chunk.every((byte) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09)
  );
}

/**
 * A backend answer's body, read whole up to `maxBytes`. S3 keeps the connection of a slow request
 * (CompleteMultipartUpload) alive by sending whitespace ahead of its document: chunks of nothing
 * but whitespace before anything else go to `onLeadingWhitespace` as they arrive, not into the
 * body. A failure while reading rejects with {@link BackendUnavailableError}.
 */
export async function readBackendAnswer(
  response: http.IncomingMessage,
  maxBytes: number,
  onLeadingWhitespace?: (whitespace: Buffer) => void,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      if (size === 0 && onLeadingWhitespace !== undefined && isWhitespace(chunk)) {
        onLeadingWhitespace(chunk);
        continue;
      }
      size += chunk.length;
      if (size > maxBytes) throw new BackendUnavailableError('backend answer too large', { kind: 'reset' });
      chunks.push(chunk);
    }
  } catch (error) {
    throw toBackendUnavailable(error);
  }
  return Buffer.concat(chunks);
}

/**
 * A small request of the gateway's own, its answer read whole up to `maxBytes`. Unreachable,
 * timed out or oversized answers reject with {@link BackendUnavailableError}.
 */
export async function backendCall(
  endpoint: URL,
  agent: BackendAgent,
  signer: BackendSigner,
  spec: BackendRequestSpec,
  options: BackendRequestOptions & { maxBytes: number },
): Promise<BackendAnswer> {
  const response = await backendRequest(endpoint, agent, signer, spec, options);
  const body = await readBackendAnswer(response, options.maxBytes);
  return { status: response.statusCode ?? 0, headers: response.headers, body };
}
