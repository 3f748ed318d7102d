/**
 * Re-signs what the gateway forwards with the backend's own credentials. The client's signature
 * is for the gateway and never travels on; the backend sees one tenant-agnostic user, and the
 * gateway signs exactly the headers it sends, over the already-encoded path, with an
 * `UNSIGNED-PAYLOAD` body (the gateway verified the body itself).
 */
import { canonicalUri } from '../sigv4/canonical.js';
import { RequestSigner, type RequestToSign, type SignedRequest } from '../sigv4/signer.js';
import type { ObjectStoreBackend } from './object-store.js';

export type BackendRequestSpec = RequestToSign;

export class BackendSigner {
  readonly #signer: RequestSigner;
  /** A backend mounted under a path (`https://host/s3`) gets that prefix on every request. */
  readonly #pathPrefix: string;

  constructor(backend: Pick<ObjectStoreBackend, 'endpoint' | 'region' | 'credentials'>) {
    this.#pathPrefix = canonicalUri(backend.endpoint.pathname.replace(/\/+$/, ''));
    if (this.#pathPrefix === '/') this.#pathPrefix = '';
    this.#signer = new RequestSigner(
      {
        accessKeyId: backend.credentials.accessKeyId,
        secretAccessKey: backend.credentials.secretAccessKey,
        region: backend.region,
      },
      backend.endpoint.host,
    );
  }

  sign(spec: BackendRequestSpec, now = Date.now()): SignedRequest {
    return this.#signer.sign(
      this.#pathPrefix === '' ? spec : { ...spec, path: `${this.#pathPrefix}${spec.path}` },
      now,
    );
  }
}
