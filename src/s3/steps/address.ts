/**
 * Which bucket and key a request addresses, and which operation it is. Virtual-hosted
 * (`bucket.<domain>`) and path-style (`/bucket/key`) are both accepted; bucket names with dots work
 * path-style (and virtual-hosted where the client can reach such a host). The raw request target
 * is never rewritten: the signature is verified against it as received, and the key is decoded
 * exactly once, strictly.
 */
import { strictPercentDecode } from '../../protocol/encoding.js';
import { S3Error } from '../../protocol/errors.js';
import { effectiveHeaders, headerValue } from '../../protocol/headers.js';
import { isKeyCharacterSetValid, isKeyLengthValid, isAddressableBucketName } from '../../protocol/limits.js';
import { hostName, splitRequestTarget } from '../../protocol/paths.js';
import { parseQuery, repeatedName } from '../../protocol/query.js';
import { detectAuthForm } from '../../sigv4/authorization.js';
import type { Exchange } from '../exchange.js';
import { classifyOperation, levelOf } from '../operations.js';
import type { Addressed, Arrived } from '../stages.js';

/** The request target taken apart, and whether it carries a signature. */
export function arrive(exchange: Exchange): Arrived {
  const { path, query: rawQuery } = splitRequestTarget(exchange.rawTarget);
  const query = parseQuery(rawQuery);
  return { exchange, rawPath: path, query, signed: detectAuthForm(exchange.headers, query) !== 'anonymous' };
}

function checkBucketName(name: string): string {
  if (!isAddressableBucketName(name)) throw new S3Error('InvalidBucketName');
  return name;
}

function decodeKey(rawKey: string): string {
  const key = strictPercentDecode(rawKey);
  if (key === null) throw new S3Error('InvalidURI');
  if (!isKeyLengthValid(key)) throw new S3Error('KeyTooLong');
  if (!isKeyCharacterSetValid(key)) throw new S3Error('KeyWithNul');
  return key;
}

export interface Location {
  readonly style: 'path' | 'virtual-hosted';
  readonly bucket: string | null;
  readonly key: string;
}

/**
 * `domain` is the storage endpoint's DNS name (`config.s3.domain`): a Host of `<bucket>.<domain>`
 * is virtual-hosted, anything else (the domain itself, an IP address, localhost) is path-style.
 */
export function resolveLocation(hostHeader: string | undefined, rawPath: string, domain: string): Location {
  // SigV4 signs the Host, and virtual-hosted buckets live in it: a request without one addresses nothing.
  if (hostHeader === undefined || hostHeader.trim() === '') throw new S3Error('MissingHostHeader');
  if (!rawPath.startsWith('/')) throw new S3Error('InvalidURI');
  const host = hostName(hostHeader);
  if (
    host.length > domain.length + 1 &&
    host.endsWith(domain) &&
    host.charCodeAt(host.length - domain.length - 1) === 0x2e
  ) {
    const bucket = checkBucketName(host.slice(0, host.length - domain.length - 1));
    return { style: 'virtual-hosted', bucket, key: decodeKey(rawPath.slice(1)) };
  }
  const slash = rawPath.indexOf('/', 1);
  const rawBucket = slash === -1 ? rawPath.slice(1) : rawPath.slice(1, slash);
  if (rawBucket === '' && slash === -1) return { style: 'path', bucket: null, key: '' };
  const decodedBucket = strictPercentDecode(rawBucket);
  if (decodedBucket === null) throw new S3Error('InvalidURI');
  const bucket = checkBucketName(decodedBucket);
  return { style: 'path', bucket, key: slash === -1 ? '' : decodeKey(rawPath.slice(slash + 1)) };
}

export function address(arrived: Arrived, domain: string): Addressed {
  const { exchange } = arrived;
  const location = resolveLocation(exchange.headers.host, arrived.rawPath, domain);
  exchange.bucket = location.bucket;
  exchange.key = location.key;
  for (const parameter of arrived.query) if (!parameter.wellFormed) throw new S3Error('InvalidURI');
  const repeated = repeatedName(arrived.query);
  if (repeated !== null) {
    throw new S3Error(
      'RepeatedQueryParameter',
      { ArgumentName: repeated },
      `The query parameter ${repeated} is given more than once; give each query parameter once.`,
    );
  }
  const headers = effectiveHeaders(exchange.headers, arrived.query);
  const level = levelOf(location.bucket, location.key);
  const classification = classifyOperation(
    exchange.method,
    level,
    arrived.query,
    headerValue(headers, 'x-amz-copy-source') !== undefined,
  );
  exchange.operation = classification.ok ? classification.operation.name : classification.label;
  return { ...arrived, ...location, level, headers, classification };
}
