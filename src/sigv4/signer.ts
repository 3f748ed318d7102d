/**
 * SigV4 signing of the requests the gateway itself sends (to the object store, re-signed with its
 * own key). Specialised for that one job: the path arrives already SigV4-encoded, every header
 * given is signed, the body goes as UNSIGNED-PAYLOAD (the gateway verified it itself), and the
 * signing key and timestamp are derived once per day and per second rather than per request.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { UNSIGNED_PAYLOAD } from '../protocol/headers.js';
import { encodeQuery, type QueryParameter } from '../protocol/query.js';
import { sigV4Encode } from '../protocol/encoding.js';
import { formatAmzDate, scopeDateOf } from './amz-date.js';
import { canonicalHeaderValue, credentialScope, sha256Hex, type SigningScope } from './canonical.js';
import { compareCodeUnits, sortFew } from './code-unit-order.js';
import { S3_SERVICE, SIGV4_ALGORITHM } from './constants.js';
import { deriveSigningKey, signStringToSign } from './signing-key.js';

export interface SigningIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
}

export interface RequestToSign {
  readonly method: string;
  /** `/bucket/key` with every segment already SigV4-encoded (its own canonical URI). */
  readonly path: string;
  readonly query: readonly Pick<QueryParameter, 'name' | 'value' | 'bare'>[];
  /** Lower-case names; sent exactly as given, all of them signed. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface SignedRequest {
  /** Path and query as they go on the wire. */
  readonly target: string;
  /** The headers given plus host, x-amz-date, x-amz-content-sha256 and authorization. */
  readonly headers: Record<string, string>;
}

/** The canonical query of parameters the gateway builds: encoded pairs sorted by name, then value. */
function canonicalQuery(query: RequestToSign['query']): string {
  if (query.length === 0) return '';
  const pairs = query.map(
    (parameter) => [sigV4Encode(parameter.name), sigV4Encode(parameter.value)] as const,
  );
  sortFew(pairs, (left, right) => compareCodeUnits(left[0], right[0]) || compareCodeUnits(left[1], right[1]));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

export class RequestSigner {
  readonly #accessKeyId: string;
  readonly #secret: string;
  readonly #region: string;
  readonly #host: string;
  #day = '';
  #scope: SigningScope = { date: '', region: '', service: S3_SERVICE };
  #scopeText = '';
  #key: KeyObject | null = null;
  #second = -1;
  #amzDate = '';

  /** `host` is the Host header the store expects (`127.0.0.1:7480`). */
  constructor(identity: SigningIdentity, host: string) {
    this.#accessKeyId = identity.accessKeyId;
    this.#secret = identity.secretAccessKey;
    this.#region = identity.region;
    this.#host = host;
  }

  sign(request: RequestToSign, now = Date.now()): SignedRequest {
    const amzDate = this.#timestamp(now);
    const key = this.#signingKey(amzDate);
    const headers: Record<string, string> = {
      ...request.headers,
      host: this.#host,
      'x-amz-content-sha256': UNSIGNED_PAYLOAD,
      'x-amz-date': amzDate,
    };
    const names = sortFew(Object.keys(headers), compareCodeUnits);
    let canonicalHeaders = '';
    for (const name of names) canonicalHeaders += `${name}:${canonicalHeaderValue(headers[name])}\n`;
    const signedHeaders = names.join(';');
    const canonicalRequest = `${request.method}\n${request.path}\n${canonicalQuery(request.query)}\n${canonicalHeaders}\n${signedHeaders}\n${UNSIGNED_PAYLOAD}`;
    const toSign = `${SIGV4_ALGORITHM}\n${amzDate}\n${this.#scopeText}\n${sha256Hex(canonicalRequest)}`;
    headers.authorization = `${SIGV4_ALGORITHM} Credential=${this.#accessKeyId}/${this.#scopeText}, SignedHeaders=${signedHeaders}, Signature=${signStringToSign(key, toSign)}`;
    const query = encodeQuery(request.query);
    return { target: query === '' ? request.path : `${request.path}?${query}`, headers };
  }

  #timestamp(now: number): string {
    const second = Math.floor(now / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#amzDate = formatAmzDate(new Date(second * 1000));
    }
    return this.#amzDate;
  }

  #signingKey(amzDate: string): KeyObject {
    const day = scopeDateOf(amzDate);
    if (day !== this.#day || this.#key === null) {
      this.#day = day;
      this.#scope = { date: day, region: this.#region, service: S3_SERVICE };
      this.#scopeText = credentialScope(this.#scope);
      this.#key = createSecretKey(deriveSigningKey(this.#secret, this.#scope));
    }
    return this.#key;
  }
}
