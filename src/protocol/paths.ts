/** The parts of an HTTP request that address something: the request target and the Host header. */
import { sigV4Encode } from './encoding.js';

export interface RequestTarget {
  /** Path exactly as received, still percent-encoded. */
  readonly path: string;
  /** Query string without the leading `?` ('' when absent). */
  readonly query: string;
}

/** `http://host:port` at the start of an absolute-form request-target (RFC 9112 3.2.2). */
const ABSOLUTE_FORM_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*/;

/**
 * Splits a raw request-target (`/bucket/key?x=1`) at the first `?`. An absolute-form target
 * (`http://host/bucket/key`, which HTTP/1.1 servers must accept) addresses and signs by its path
 * alone, the way the client's signer saw it.
 */
export function splitRequestTarget(rawTarget: string): RequestTarget {
  const originForm =
    rawTarget.charCodeAt(0) === 0x2f ? rawTarget : rawTarget.replace(ABSOLUTE_FORM_PREFIX, '');
  const questionMark = originForm.indexOf('?');
  if (questionMark === -1) return { path: originForm, query: '' };
  return { path: originForm.slice(0, questionMark), query: originForm.slice(questionMark + 1) };
}

/**
 * Host header to a lower-case host name without the port. A fully qualified name's trailing dot
 * (`bucket.s3.example.com.`) names the same host: kept, it would make a virtual-hosted request
 * look path-style, and its path's first segment would be taken for another bucket.
 */
export function hostName(hostHeader: string | undefined): string {
  const host = (hostHeader ?? '').trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  const name = colon === -1 ? host : host.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** `/bucket/key` with each key segment SigV4-encoded: decoding it gives back exactly the key. */
export function objectPath(bucket: string, key: string): string {
  return `/${bucket}/${key.split('/').map(sigV4Encode).join('/')}`;
}

/** The path of a bucket (key ''), an object, or the service root (bucket null). */
export function resourcePath(bucket: string | null, key: string): string {
  if (bucket === null) return '/';
  return key === '' ? `/${bucket}` : objectPath(bucket, key);
}

/** The resource an error document names: `/bucket/key` as S3 prints it (decoded). */
export function errorResource(bucket: string | null, key: string): string | undefined {
  if (bucket === null) return undefined;
  return key === '' ? `/${bucket}` : `/${bucket}/${key}`;
}
