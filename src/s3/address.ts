/**
 * Which bucket and key a request addresses. Virtual-hosted (`bucket.<domain>`) and path-style
 * (`/bucket/key`) are both accepted; bucket names with dots work path-style (and virtual-hosted
 * where the client can reach such a host). The raw request target is never rewritten here: the
 * signature is verified against it as received, and the key is decoded exactly once, strictly.
 */
import { S3Error } from './errors.js';
import { strictPercentDecode } from './percent-decoding.js';
import { splitRequestTarget } from './sigv4/index.js';

export interface QueryParameter {
  /** Decoded name, case as sent. */
  readonly name: string;
  /** Decoded value; '' for a bare subresource such as `?uploads`. */
  readonly value: string;
  /** True when the parameter had no `=` at all. */
  readonly bare: boolean;
}

export interface S3Address {
  readonly style: 'path' | 'virtual-hosted';
  /** Null for the service root (ListBuckets). */
  readonly bucket: string | null;
  /** The object key, decoded; '' for bucket and service requests. */
  readonly key: string;
  /** The path exactly as received, still percent-encoded. */
  readonly rawPath: string;
  readonly query: readonly QueryParameter[];
}

/** S3's rules for bucket names: 3-63 of a-z 0-9 . -, starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
export const MAX_KEY_BYTES = 1024;

export function isValidBucketName(name: string): boolean {
  return BUCKET_NAME.test(name);
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

export function parseQuery(rawQuery: string): QueryParameter[] {
  const parameters: QueryParameter[] = [];
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const equals = piece.indexOf('=');
    const name = strictPercentDecode(equals === -1 ? piece : piece.slice(0, equals));
    const value = strictPercentDecode(equals === -1 ? '' : piece.slice(equals + 1));
    if (name === null || value === null) throw new S3Error('InvalidURI');
    parameters.push({ name, value, bare: equals === -1 });
  }
  return parameters;
}

function checkBucketName(name: string): string {
  if (!isValidBucketName(name)) throw new S3Error('InvalidBucketName');
  return name;
}

function decodeKey(rawKey: string): string {
  const key = strictPercentDecode(rawKey);
  if (key === null) throw new S3Error('InvalidURI');
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) throw new S3Error('KeyTooLong');
  return key;
}

/**
 * Resolves the bucket and key of a request. `domain` is the storage endpoint's DNS name
 * (`config.s3.domain`): a Host of `<bucket>.<domain>` is virtual-hosted, anything else
 * (the domain itself, an IP address, localhost) is path-style.
 */
export function resolveAddress(hostHeader: string | undefined, rawTarget: string, domain: string): S3Address {
  // SigV4 signs the Host, and virtual-hosted buckets live in it: a request without one addresses nothing.
  if (hostHeader === undefined || hostHeader.trim() === '') throw new S3Error('MissingHostHeader');
  const { path: rawPath, query: rawQuery } = splitRequestTarget(rawTarget);
  if (!rawPath.startsWith('/')) throw new S3Error('InvalidURI');
  const query = parseQuery(rawQuery);
  const host = hostName(hostHeader);
  const suffix = `.${domain}`;

  if (host.endsWith(suffix) && host.length > suffix.length) {
    const bucket = checkBucketName(host.slice(0, -suffix.length));
    return { style: 'virtual-hosted', bucket, key: decodeKey(rawPath.slice(1)), rawPath, query };
  }

  const withoutSlash = rawPath.slice(1);
  if (withoutSlash === '') return { style: 'path', bucket: null, key: '', rawPath, query };
  const slash = withoutSlash.indexOf('/');
  const rawBucket = slash === -1 ? withoutSlash : withoutSlash.slice(0, slash);
  const decodedBucket = strictPercentDecode(rawBucket);
  if (decodedBucket === null) throw new S3Error('InvalidURI');
  const bucket = checkBucketName(decodedBucket);
  const key = slash === -1 ? '' : decodeKey(withoutSlash.slice(slash + 1));
  return { style: 'path', bucket, key, rawPath, query };
}

/** The value of a query parameter (first occurrence), or undefined. */
export function queryValue(address: Pick<S3Address, 'query'>, name: string): string | undefined {
  return address.query.find((parameter) => parameter.name === name)?.value;
}

/** The resource an error document names: `/bucket/key` as S3 prints it. */
export function resourceOf(address: S3Address | null): string | undefined {
  if (address === null || address.bucket === null) return undefined;
  return address.key === '' ? `/${address.bucket}` : `/${address.bucket}/${address.key}`;
}
