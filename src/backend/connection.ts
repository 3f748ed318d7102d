/**
 * The storage endpoint's connections to the object store: one keep-alive pool (undici) per
 * process, used for the proxied requests and for the gateway's own calls (ListParts, completion,
 * existence probes). Every request is re-signed with the backend's credentials on its way out.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { Pool } from './undici-pool.js';
import { BackendSigner, type BackendRequestSpec } from './signer.js';
import type { ObjectStoreBackend } from './object-store.js';

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

const UNREACHABLE: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const TIMEOUTS: ReadonlySet<string> = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** Any failure on a backend connection, as a {@link BackendUnavailableError} of the right kind. */
export function toBackendUnavailable(error: unknown): BackendUnavailableError {
  if (error instanceof BackendUnavailableError) return error;
  const { code, message } = error as NodeJS.ErrnoException;
  const causeCode = ((error as { cause?: NodeJS.ErrnoException }).cause ?? {}).code;
  const kind =
    UNREACHABLE.has(code ?? '') || UNREACHABLE.has(causeCode ?? '')
      ? 'unreachable'
      : TIMEOUTS.has(code ?? '')
        ? 'timeout'
        : 'reset';
  return new BackendUnavailableError(message, { kind, cause: error });
}

export interface BackendAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

export interface StreamedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Readable;
}

export interface BackendConnectionOptions {
  /** Time allowed for the answer's head, and between two chunks of its body. */
  readonly timeoutMs: number;
}

export class BackendConnection {
  readonly endpoint: URL;
  readonly #pool: Pool;
  readonly #signer: BackendSigner;

  constructor(
    backend: Pick<ObjectStoreBackend, 'endpoint' | 'region' | 'credentials'>,
    options: BackendConnectionOptions,
  ) {
    this.endpoint = backend.endpoint;
    this.#signer = new BackendSigner(backend);
    this.#pool = new Pool(backend.endpoint.origin, {
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connectTimeout: options.timeoutMs,
      keepAliveTimeout: 60_000,
      // The store's own keep-alive ends idle connections; never race it with a reused one.
      keepAliveTimeoutThreshold: 2_000,
      pipelining: 1,
    });
  }

  /*
   * Every request is sent with `reset: false`: undici otherwise closes the connection after each
   * HEAD (in case a broken server sends a body after the head), and a new TCP connection per
   * HeadObject, and per HEAD the gateway asks itself (the size an upload under a quota replaces),
   * cost more than the request. An S3 store answers HEAD with the object's length and no body.
   */

  /**
   * Sends a signed request whose answer streams to `handler`. `body` is the (already verified)
   * request body; its length must be among the spec's headers.
   */
  dispatch(
    spec: BackendRequestSpec,
    body: Readable | Buffer | null,
    handler: Dispatcher.DispatchHandler,
  ): void {
    const signed = this.#signer.sign(spec);
    this.#pool.dispatch(
      {
        method: spec.method as Dispatcher.HttpMethod,
        path: signed.target,
        headers: signed.headers,
        body,
        reset: false,
      },
      handler,
    );
  }

  /** A request of the gateway's own, resolved when the answer's head arrives; the body is the caller's to read. */
  async request(spec: BackendRequestSpec, body: Buffer | null = null): Promise<StreamedAnswer> {
    const signed = this.#signer.sign(spec);
    try {
      const answer = await this.#pool.request({
        method: spec.method as Dispatcher.HttpMethod,
        path: signed.target,
        headers: signed.headers,
        body,
        reset: false,
      });
      return { status: answer.statusCode, headers: answer.headers, body: answer.body };
    } catch (error) {
      throw toBackendUnavailable(error);
    }
  }

  /** A small request of the gateway's own, its answer read whole up to `maxBytes`. */
  async call(spec: BackendRequestSpec, options: { maxBytes: number; body?: Buffer }): Promise<BackendAnswer> {
    const answer = await this.request(spec, options.body ?? null);
    const body = await readAnswer(answer.body, options.maxBytes);
    return { status: answer.status, headers: answer.headers, body };
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }
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
export async function readAnswer(
  body: Readable,
  maxBytes: number,
  onLeadingWhitespace?: (whitespace: Buffer) => void,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (size === 0 && onLeadingWhitespace !== undefined && isWhitespace(chunk)) {
        onLeadingWhitespace(chunk);
        continue;
      }
      size += chunk.length;
      if (size > maxBytes) {
        body.destroy();
        throw new BackendUnavailableError('backend answer too large', { kind: 'reset' });
      }
      chunks.push(chunk);
    }
  } catch (error) {
    throw toBackendUnavailable(error);
  }
  return Buffer.concat(chunks);
}
