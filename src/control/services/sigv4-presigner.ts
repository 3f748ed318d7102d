import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

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
function encodeObjectKey(key: string): string {
  return key.split('/').map(uriEncode).join('/');
}

export interface PresignInput {
  accessKeyId: string;
  secret: string;
  /** The storage endpoint as clients reach it, e.g. https://s3.example.com */
  endpoint: string;
  bucket: string;
  key: string;
  method: string;
  expiresIn: number;
  /** Headers the request will carry, signed (host is added). */
  headers: Record<string, string>;
  signingDate: Date;
}

/** A path-style, query-signed SigV4 URL (UNSIGNED-PAYLOAD), as S3 clients' presigners make them. */
export async function presignS3Url(input: PresignInput): Promise<string> {
  const base = new URL(input.endpoint);
  const basePath = base.pathname.replace(/\/+$/, '');
  const signer = new SignatureV4({
    credentials: { accessKeyId: input.accessKeyId, secretAccessKey: input.secret },
    region: SIGNING_REGION,
    service: 's3',
    sha256: NodeSha256,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const signed = await signer.presign(
    {
      method: input.method,
      protocol: base.protocol,
      hostname: base.hostname,
      port: base.port === '' ? undefined : Number(base.port),
      path: `${basePath}/${input.bucket}/${encodeObjectKey(input.key)}`,
      query: {},
      // Present only so the canonical request carries UNSIGNED-PAYLOAD; neither hoisted nor signed.
      headers: { ...input.headers, host: base.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    },
    {
      expiresIn: input.expiresIn,
      signingDate: input.signingDate,
      unhoistableHeaders: new Set(['x-amz-content-sha256']),
      unsignableHeaders: new Set(['x-amz-content-sha256']),
    },
  );
  // Built by hand: URL and URLSearchParams would re-encode what was signed.
  const query = Object.entries(signed.query ?? {})
    .map(([name, value]) => `${uriEncode(name)}=${uriEncode(String(value))}`)
    .join('&');
  return `${base.origin}${signed.path}?${query}`;
}
