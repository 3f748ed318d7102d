/**
 * One storage request on its way through the pipeline: what arrived, and what each step has
 * learned so far. Steps read and fill it; the finishing hook turns it into metrics, usage and
 * the access log line.
 */
import type http from 'node:http';
import type { RefusalReason } from '../observability/metrics.js';
import { performance } from 'node:perf_hooks';
import type { BucketEntry } from '../store/access-cache.js';
import type { CredentialRecord, OrganisationRecord } from '../store/records.js';
import type { S3Address } from './address.js';
import type { OperationName, UnclassifiedLabel } from './operation.js';
import { newRequestId } from './request-id.js';

export type Identity =
  | { readonly kind: 'anonymous' }
  | {
      readonly kind: 'credential';
      readonly credential: CredentialRecord;
      readonly form: 'header' | 'presigned';
      /** What the signature says the body hashes to (hex, UNSIGNED-PAYLOAD or a streaming mode). */
      readonly payloadHash: string;
    };

export interface S3Exchange {
  readonly id: string;
  /** performance.now() at arrival. */
  readonly startedAt: number;
  readonly receivedAt: Date;
  readonly request: http.IncomingMessage;
  readonly response: http.ServerResponse;
  readonly method: string;
  /** The request target exactly as received (the proxy later points request.url elsewhere). */
  readonly rawTarget: string;
  /** The headers exactly as received (the proxy later replaces request.headers). */
  readonly headers: http.IncomingHttpHeaders;
  /** Node answers `Expect: 100-continue` only when told to, after authentication. */
  readonly expectsContinue: boolean;
  continueSent: boolean;

  address: S3Address | null;
  operation: OperationName | UnclassifiedLabel;
  identity: Identity | null;
  /** True once authorisation passed; only authorised traffic is metered as usage. */
  authorised: boolean;
  /** The organisation the request is accounted to (credential's, or the public bucket's owner). */
  organisation: OrganisationRecord | null;
  /** The addressed bucket once looked up; undefined until then, null when it does not exist. */
  bucket: BucketEntry | null | undefined;
  /** CORS headers for the response, when the bucket has a rule for the request's Origin. */
  corsHeaders: Readonly<Record<string, string>>;

  bytesIn: number;
  bytesOut: number;
  headSentAt: number | null;
  /** The S3 error code of the response, '' on success. */
  errorCode: string;
  /** Why the request was refused at the edge, when it was; counted once the response is over. */
  refusalReason: RefusalReason | null;
  /** The access key the request named, verified or not (for the log, never a secret). */
  accessKeyId: string | null;
}

export function createExchange(request: http.IncomingMessage, response: http.ServerResponse): S3Exchange {
  return {
    id: newRequestId(),
    startedAt: performance.now(),
    receivedAt: new Date(),
    request,
    response,
    method: request.method ?? 'GET',
    rawTarget: request.url ?? '/',
    headers: request.headers,
    expectsContinue: (request.headers.expect ?? '').toLowerCase() === '100-continue',
    continueSent: false,
    address: null,
    operation: 'Unclassified',
    identity: null,
    authorised: false,
    organisation: null,
    bucket: undefined,
    corsHeaders: {},
    bytesIn: 0,
    bytesOut: 0,
    headSentAt: null,
    errorCode: '',
    refusalReason: null,
    accessKeyId: null,
  };
}

/** Tells a client waiting on `Expect: 100-continue` to send its body; only once it is wanted. */
export function allowBody(exchange: S3Exchange): void {
  if (exchange.expectsContinue && !exchange.continueSent && !exchange.response.headersSent) {
    exchange.response.writeContinue();
  }
  exchange.continueSent = true;
}
