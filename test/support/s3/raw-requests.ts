/**
 * Hand-built storage requests over node:http, for what an SDK will not send: corrupted bodies,
 * wrong hashes, dot-segment keys, signed streaming, skewed clocks, unsigned requests without a
 * User-Agent. Signing uses @smithy/signature-v4 like the SDKs, independent of the gateway's verifier.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { TestCredential } from './fixtures.js';

/** SHA-256 and HMAC-SHA-256 on node:crypto, as the AWS SDK gives them to its SigV4 signer. */
const Sha256Hash = Hash.bind(null, 'sha256');

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** True when the server sent `100 Continue` before answering. */
  continued: boolean;
}

export interface RawRequest {
  method: string;
  /** Path and query exactly as they go on the wire. */
  target: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Send `Expect: 100-continue` and the body only if the server asks for it. */
  expectContinue?: boolean;
  /** Stop after this many body bytes and cut the connection (a client that goes away). */
  abortAfterBytes?: number;
  /**
   * With `abortAfterBytes`: cut the connection only once this resolves (say, once the server is
   * seen handling the request), rather than as soon as the bytes are written.
   */
  abortWhen?: () => Promise<unknown>;
}

export function sendRaw(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  return new Promise((resolve, reject) => {
    let continued = false;
    const outgoing = http.request({
      host: url.hostname,
      port: url.port,
      method: request.method,
      path: request.target,
      headers: {
        ...(body === undefined || request.headers?.['content-length'] !== undefined
          ? {}
          : { 'content-length': String(body.length) }),
        ...(request.expectContinue ? { expect: '100-continue' } : {}),
        ...request.headers,
      },
      agent: false,
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          continued,
        }),
      );
    });
    if (request.abortAfterBytes !== undefined && body !== undefined) {
      // The point is to go away: the reset that follows is expected, not a failure.
      outgoing.on('error', () => undefined);
      // Gone means closed: resolved once the connection is, not after a guess at how long that takes.
      outgoing.once('close', () => resolve({ status: 0, headers: {}, body: '', continued }));
      outgoing.write(body.subarray(0, request.abortAfterBytes), () => {
        (request.abortWhen?.() ?? Promise.resolve()).then(
          () => outgoing.destroy(),
          (error: unknown) => {
            outgoing.destroy();
            reject(error);
          },
        );
      });
      return;
    }
    outgoing.on('error', reject);
    if (request.expectContinue) {
      outgoing.on('continue', () => {
        continued = true;
        outgoing.end(body);
      });
      outgoing.flushHeaders();
      return;
    }
    outgoing.end(body);
  });
}

/**
 * Writes `text` on a fresh TCP connection and returns every byte the server sent until it closed
 * the connection (send `Connection: close`). For what an HTTP client hides: a body after a HEAD
 * response, requests no client library would frame that way. `hangUp` ends the client's side of the
 * connection right after the request, like a client that goes away before the answer; `hangUpWhen`
 * ends it once that resolves instead (say, once the request is seen to have reached the store).
 */
export function sendOnSocket(
  baseUrl: string,
  text: string,
  options: { hangUp?: boolean; hangUpWhen?: () => Promise<unknown> } = {},
): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that refuses a request may reset the connection once it answered: the answer counts.
    socket.on('error', (error) => (chunks.length === 0 ? reject(error) : undefined));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    if (options.hangUp) socket.end(text);
    else socket.write(text);
    options.hangUpWhen?.().then(
      () => socket.end(),
      (error: unknown) => {
        socket.destroy();
        reject(error);
      },
    );
  });
}

export interface SignOptions {
  credential: TestCredential;
  method: string;
  /** The gateway's base URL; its host is what gets signed. */
  baseUrl: string;
  /** Path exactly as sent (already encoded). */
  path: string;
  /** A list of values repeats the parameter (signed as SigV4 canonicalises it: sorted by value). */
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  /** The x-amz-content-sha256 value. */
  payloadHash: string;
  signingDate?: Date;
  region?: string;
}

/** Signed headers for a request, as an SDK would compute them. */
export async function signedHeaders(options: SignOptions): Promise<Record<string, string>> {
  const url = new URL(options.baseUrl);
  const signer = new SignatureV4({
    service: 's3',
    region: options.region ?? 'us-east-1',
    credentials: { accessKeyId: options.credential.accessKeyId, secretAccessKey: options.credential.secret },
    sha256: Sha256Hash,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const headers = { ...options.headers, host: url.host, 'x-amz-content-sha256': options.payloadHash };
  const signed = await signer.sign(
    {
      method: options.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: options.path,
      query: options.query ?? {},
      headers,
    },
    { signingDate: options.signingDate ?? new Date(), signableHeaders: new Set(Object.keys(headers)) },
  );
  return signed.headers;
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `?a=1&b` as sent, from the same map that was signed (values SigV4-encoded; a list repeats the name). */
export function queryString(query: Record<string, string | string[]>): string {
  const encode = (text: string) =>
    encodeURIComponent(text).replace(
      /[!'()*]/g,
      (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
    );
  const pairs = Object.entries(query).flatMap(([name, values]) =>
    (Array.isArray(values) ? values : [values]).map((value) => `${encode(name)}=${encode(value)}`),
  );
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

export interface ParsedS3Error {
  code: string | undefined;
  message: string | undefined;
  requestId: string | undefined;
}

function unescapeXml(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
}

export function parseS3Error(body: string): ParsedS3Error {
  const text = (name: string) => {
    const found = new RegExp(`<${name}>([^<]*)</${name}>`).exec(body)?.[1];
    return found === undefined ? undefined : unescapeXml(found);
  };
  return { code: text('Code'), message: text('Message'), requestId: text('RequestId') };
}

/**
 * The response is the S3 error document for exactly this code, status and message, and its
 * RequestId is the one in the x-amz-request-id header.
 */
export function describeRawError(response: RawResponse): {
  status: number;
  code: string | undefined;
  message: string | undefined;
  requestIdMatches: boolean;
} {
  const parsed = parseS3Error(response.body);
  return {
    status: response.status,
    code: parsed.code,
    message: parsed.message,
    requestIdMatches:
      parsed.requestId !== undefined && parsed.requestId === response.headers['x-amz-request-id'],
  };
}
