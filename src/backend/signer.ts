/**
 * Re-signs what the gateway forwards with the backend's own credentials. The client's signature
 * is for the gateway and never travels on; the backend sees one tenant-agnostic user, and the
 * gateway signs exactly the headers it sends, over the already-encoded path (S3 style:
 * `uriEscapePath: false`), with an `UNSIGNED-PAYLOAD` body (the gateway verified the body itself).
 */
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { ObjectStoreBackend } from './object-store.js';
import type { QueryParameter } from '../s3/address.js';
import { sigV4Encode, UNSIGNED_PAYLOAD } from '../s3/sigv4/index.js';

/** SHA-256 and HMAC-SHA-256 on node:crypto, as the AWS SDK gives them to its SigV4 signer. */
const Sha256Hash = Hash.bind(null, 'sha256');

export interface BackendRequestSpec {
  readonly method: string;
  /** `/bucket/key` with every segment already SigV4-encoded. */
  readonly path: string;
  readonly query: readonly QueryParameter[];
  /** Lower-case names; sent exactly as given, all of them signed. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface SignedBackendRequest {
  /** Path and query as they go on the wire. */
  readonly target: string;
  readonly headers: Record<string, string>;
}

/** The query as sent: SigV4 encoding, so what the backend canonicalises is what was signed. */
export function encodeQuery(query: readonly QueryParameter[]): string {
  return query
    .map((parameter) =>
      parameter.bare
        ? sigV4Encode(parameter.name)
        : `${sigV4Encode(parameter.name)}=${sigV4Encode(parameter.value)}`,
    )
    .join('&');
}

function signingQuery(query: readonly QueryParameter[]): Record<string, string | string[]> {
  const grouped: Record<string, string | string[]> = {};
  for (const { name, value } of query) {
    const existing = grouped[name];
    if (existing === undefined) grouped[name] = value;
    else grouped[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return grouped;
}

export class BackendSigner {
  readonly #signer: SignatureV4;
  readonly #endpoint: URL;
  /** A backend mounted under a path (`https://host/s3`) gets that prefix on every request. */
  readonly #pathPrefix: string;

  constructor(backend: Pick<ObjectStoreBackend, 'endpoint' | 'region' | 'credentials'>) {
    this.#endpoint = backend.endpoint;
    this.#pathPrefix = backend.endpoint.pathname.replace(/\/+$/, '');
    this.#signer = new SignatureV4({
      service: 's3',
      region: backend.region,
      credentials: backend.credentials,
      sha256: Sha256Hash,
      uriEscapePath: false,
      applyChecksum: false,
    });
  }

  async sign(spec: BackendRequestSpec, signingDate = new Date()): Promise<SignedBackendRequest> {
    const path = `${this.#pathPrefix}${spec.path}`;
    const headers: Record<string, string> = {
      ...spec.headers,
      host: this.#endpoint.host,
      'x-amz-content-sha256': UNSIGNED_PAYLOAD,
    };
    const signed = await this.#signer.sign(
      {
        method: spec.method,
        protocol: this.#endpoint.protocol,
        hostname: this.#endpoint.hostname,
        port: this.#endpoint.port === '' ? undefined : Number(this.#endpoint.port),
        path,
        query: signingQuery(spec.query),
        headers,
      },
      { signingDate, signableHeaders: new Set(Object.keys(headers)) },
    );
    const query = encodeQuery(spec.query);
    return { target: query === '' ? path : `${path}?${query}`, headers: signed.headers };
  }
}
