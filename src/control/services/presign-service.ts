import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { scopeAllowsMethod, scopeCoversBucket } from '../../access/scope.js';
import { isManager, requireMember, type Caller } from '../auth/caller.js';
import type { ControlDependencies } from '../dependencies.js';
import type { PresignRequest, PresignResponse } from '../models/buckets.js';
import { invalidField, ProblemError } from '../problems.js';
import { objectKeyProblem } from './bucket-rules.js';
import type { BucketService } from './bucket-service.js';

export const DEFAULT_PRESIGN_SECONDS = 3600;
export const MAX_PRESIGN_SECONDS = 604_800;
/** Presigned URLs are signed for this region, which the storage endpoint always accepts. */
const SIGNING_REGION = 'us-east-1';

/** What the signer hashes (smithy's SourceData). */
type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytes(data: SourceData): Uint8Array | string {
  if (typeof data === 'string') return data;
  return ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
}

/** The SHA-256 / HMAC-SHA-256 the signer needs, on node:crypto. */
class NodeSha256 {
  readonly #secret: Uint8Array | string | undefined;
  #hash: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.#secret = secret === undefined ? undefined : bytes(secret);
    this.#hash = this.#fresh();
  }

  update(data: SourceData): void {
    this.#hash.update(bytes(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }

  reset(): void {
    this.#hash = this.#fresh();
  }

  #fresh(): Hash | Hmac {
    return this.#secret === undefined ? createHash('sha256') : createHmac('sha256', this.#secret);
  }
}

/** SigV4's URI encoding: everything but RFC 3986 unreserved characters. */
function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Each key segment encoded, "/" kept: S3 signs the path exactly as sent. */
export function encodeObjectKey(key: string): string {
  return key.split('/').map(uriEncode).join('/');
}

/**
 * Server-side presigning: a path-style URL on the public storage endpoint, query-signed (SigV4,
 * UNSIGNED-PAYLOAD) with the named credential's own secret, so the storage endpoint verifies it like
 * any client's and applies that credential's scope.
 */
export class PresignService {
  readonly #deps: ControlDependencies;
  readonly #buckets: BucketService;

  constructor(deps: ControlDependencies, buckets: BucketService) {
    this.#deps = deps;
    this.#buckets = buckets;
  }

  async presign(caller: Caller, bucketName: string, request: PresignRequest): Promise<PresignResponse> {
    const member = requireMember(caller);
    const bucket = await this.#buckets.bucketOf(member, bucketName);
    const keyProblem = objectKeyProblem(request.key);
    if (keyProblem !== null) throw invalidField('key', keyProblem);

    const credential = await this.#deps.context.store.credentials.find(request.accessKeyId);
    if (credential === null || credential.organisationId !== member.organisationId) {
      throw invalidField('accessKeyId', 'no credential with this id in your organisation');
    }
    if (!isManager(member) && credential.createdBy !== member.userId) {
      throw new ProblemError('forbidden', 'Members presign only with the credentials they created.');
    }
    if (credential.expiresAt !== null && credential.expiresAt.getTime() <= Date.now()) {
      throw new ProblemError('credential_expired', `The credential ${credential.accessKeyId} has expired.`);
    }
    if (
      !scopeCoversBucket(credential.scope, bucket.name) ||
      !scopeAllowsMethod(credential.scope, request.method)
    ) {
      throw new ProblemError(
        'credential_scope_insufficient',
        `The credential ${credential.accessKeyId} does not allow ${request.method} on bucket "${bucket.name}".`,
      );
    }

    const expiresIn = request.expiresIn ?? DEFAULT_PRESIGN_SECONDS;
    const base = new URL(this.#deps.context.s3PublicUrl);
    const basePath = base.pathname.replace(/\/+$/, '');
    const headers: Record<string, string> = { host: base.host };
    if (request.contentType !== undefined) headers['content-type'] = request.contentType;
    const signer = new SignatureV4({
      credentials: { accessKeyId: credential.accessKeyId, secretAccessKey: credential.secret },
      region: SIGNING_REGION,
      service: 's3',
      sha256: NodeSha256,
      uriEscapePath: false,
      applyChecksum: false,
    });
    const signingDate = new Date();
    const signed = await signer.presign(
      {
        method: request.method,
        protocol: base.protocol,
        hostname: base.hostname,
        port: base.port === '' ? undefined : Number(base.port),
        path: `${basePath}/${bucket.name}/${encodeObjectKey(request.key)}`,
        query: {},
        // Present only so the canonical request carries UNSIGNED-PAYLOAD; neither hoisted nor signed.
        headers: { ...headers, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      },
      {
        expiresIn,
        signingDate,
        unhoistableHeaders: new Set(['x-amz-content-sha256']),
        unsignableHeaders: new Set(['x-amz-content-sha256']),
      },
    );
    // Built by hand: URL and URLSearchParams would re-encode what was signed.
    const query = Object.entries(signed.query ?? {})
      .map(([name, value]) => `${uriEncode(name)}=${uriEncode(String(value))}`)
      .join('&');
    await this.#deps.audit.record(member, {
      organisationId: member.organisationId,
      action: 'object.presign',
      target: `${bucket.name}/${request.key}`,
      details: { method: request.method, accessKeyId: credential.accessKeyId, expiresIn },
    });
    const { host: _host, ...requiredHeaders } = headers;
    return {
      url: `${base.origin}${signed.path}?${query}`,
      method: request.method,
      headers: requiredHeaders,
      expiresAt: new Date(signingDate.getTime() + expiresIn * 1000),
    };
  }
}
