/**
 * One storage request's bookkeeping: what arrived, and what its answer and its access log line
 * need to know (the operation label, who is accounted, bytes, timing, the error code). Decisions
 * travel in the typed stages (stages.ts), which a step must be handed to act on; this record only
 * notes what each step learned, as it learns it, for the answer and the log. It is written before
 * a step can fail on purpose: a request refused by its scope is still logged with its bucket and
 * key id and counted against its organisation, though it never reaches the Authorised stage.
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { LimitKind } from '../observability/metrics.js';
import type { RefusalReason } from '../protocol/errors.js';
import type { OrganisationRecord } from '../store/records.js';
import type { OperationLabel } from './operations.js';
import { newRequestId } from './request-id.js';

/** CORS headers of a response that carries none. */
const NO_CORS: Readonly<Record<string, string>> = Object.freeze({});

export class Exchange {
  readonly id = newRequestId();
  /** performance.now() at arrival. */
  readonly startedAt = performance.now();
  readonly method: string;
  /** The request target exactly as received. */
  readonly rawTarget: string;
  /** The headers exactly as received. */
  readonly headers: http.IncomingHttpHeaders;
  /** Node answers `Expect: 100-continue` only when told to, after authorisation. */
  readonly expectsContinue: boolean;
  /** The client's address (read at arrival: a finished response's socket may be gone). */
  readonly remoteAddress: string | null;
  continueSent = false;

  /** The operations table's name for the request (the metrics label). */
  operation: OperationLabel = 'Unclassified';
  /** The addressed bucket and key, once known (error documents, the access log). */
  bucket: string | null = null;
  key = '';
  /** The access key the request named, verified or not (for the log, never a secret). */
  accessKeyId: string | null = null;
  /** The organisation the request is accounted to (the credential's, or the public bucket's owner). */
  organisation: OrganisationRecord | null = null;
  /** True once authorisation passed; only authorised traffic is metered as usage. */
  authorised = false;
  /** CORS headers for the response, when the bucket has a rule for the request's Origin. */
  corsHeaders: Readonly<Record<string, string>> = NO_CORS;

  bytesIn = 0;
  bytesOut = 0;
  headSentAt: number | null = null;
  /** The S3 error code of the response, '' on success. */
  errorCode = '';
  /** Why the request was refused at the edge, when it was. */
  refusalReason: RefusalReason | null = null;
  /** The tenant limit that refused it (a rate limit or a storage quota), when one did. */
  limitedBy: LimitKind | null = null;

  constructor(
    readonly request: http.IncomingMessage,
    readonly response: http.ServerResponse,
    /** How long the request body may stay silent while it is read (GATEWAY_S3_BODY_IDLE_TIMEOUT_MS). */
    readonly bodyIdleTimeoutMs = 20_000,
  ) {
    this.method = request.method ?? 'GET';
    this.rawTarget = request.url ?? '/';
    this.headers = request.headers;
    this.remoteAddress = request.socket?.remoteAddress ?? null;
    const expect = request.headers.expect;
    this.expectsContinue = expect !== undefined && expect.toLowerCase() === '100-continue';
  }

  /** Tells a client waiting on `Expect: 100-continue` to send its body; only once it is wanted. */
  allowBody(): void {
    if (this.expectsContinue && !this.continueSent && !this.response.headersSent)
      this.response.writeContinue();
    this.continueSent = true;
  }
}
