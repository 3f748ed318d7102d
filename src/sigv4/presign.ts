/**
 * Presigning for the control plane: query-signed URLs and browser form policies, signed by the AWS
 * SDK's own SigV4 signer (@smithy/signature-v4) so that they are exactly what S3 clients make. The
 * rules of who may presign what live in control/services/presign-service.ts.
 */
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import { sigV4Encode } from '../protocol/encoding.js';
import { UNSIGNED_PAYLOAD } from '../protocol/headers.js';
import { objectPath } from '../protocol/paths.js';
import { formatAmzDate, scopeDateOf } from './amz-date.js';
import { credentialScope } from './canonical.js';
import { S3_SERVICE, SIGV4_ALGORITHM } from './constants.js';

/** SHA-256 and HMAC-SHA-256 on node:crypto, as the AWS SDK gives them to its SigV4 signer. */
const Sha256Hash = Hash.bind(null, 'sha256');

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
  /** The region to sign for: the first the storage endpoint accepts (GATEWAY_S3_REGIONS). */
  region: string;
}

/** A path-style, query-signed SigV4 URL (UNSIGNED-PAYLOAD), as S3 clients' presigners make them. */
export async function presignS3Url(input: PresignInput): Promise<string> {
  const base = new URL(input.endpoint);
  const basePath = base.pathname.replace(/\/+$/, '');
  const signer = new SignatureV4({
    credentials: { accessKeyId: input.accessKeyId, secretAccessKey: input.secret },
    region: input.region,
    service: S3_SERVICE,
    sha256: Sha256Hash,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const signed = await signer.presign(
    {
      method: input.method,
      protocol: base.protocol,
      hostname: base.hostname,
      port: base.port === '' ? undefined : Number(base.port),
      path: `${basePath}${objectPath(input.bucket, input.key)}`,
      query: {},
      // Present only so the canonical request carries UNSIGNED-PAYLOAD; neither hoisted nor signed.
      headers: { ...input.headers, host: base.host, 'x-amz-content-sha256': UNSIGNED_PAYLOAD },
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
    .map(([name, value]) => `${sigV4Encode(name)}=${sigV4Encode(String(value))}`)
    .join('&');
  return `${base.origin}${signed.path}?${query}`;
}

export interface PresignPostInput {
  accessKeyId: string;
  secret: string;
  endpoint: string;
  bucket: string;
  /** The object key; a trailing `${filename}` leaves that part to the uploaded file's name. */
  key: string;
  expiresIn: number;
  contentType?: string;
  maxSizeBytes?: number;
  successActionRedirect?: string;
  signingDate: Date;
  region: string;
}

const FILENAME = '${filename}';

/**
 * A browser form upload's URL and fields: a policy (expiry, and a condition for every field the
 * form sends) signed with SigV4 over its base64 text, as the AWS SDKs' createPresignedPost makes it.
 */
export async function presignS3Post(
  input: PresignPostInput,
): Promise<{ url: string; fields: Record<string, string> }> {
  const base = new URL(input.endpoint);
  const basePath = base.pathname.replace(/\/+$/, '');
  const amzDate = formatAmzDate(input.signingDate);
  const scope = { date: scopeDateOf(amzDate), region: input.region, service: S3_SERVICE };
  const fields: Record<string, string> = {
    key: input.key,
    ...(input.contentType === undefined ? {} : { 'Content-Type': input.contentType }),
    ...(input.successActionRedirect === undefined
      ? {}
      : { success_action_redirect: input.successActionRedirect }),
    'X-Amz-Algorithm': SIGV4_ALGORITHM,
    'X-Amz-Credential': `${input.accessKeyId}/${credentialScope(scope)}`,
    'X-Amz-Date': amzDate,
  };
  const keyCondition = input.key.endsWith(FILENAME)
    ? ['starts-with', '$key', input.key.slice(0, -FILENAME.length)]
    : { key: input.key };
  const conditions: unknown[] = [
    { bucket: input.bucket },
    keyCondition,
    ...Object.entries(fields)
      .filter(([name]) => name !== 'key')
      .map(([name, value]) => ({ [name]: value })),
    ...(input.maxSizeBytes === undefined ? [] : [['content-length-range', 0, input.maxSizeBytes]]),
  ];
  const expiration = new Date(input.signingDate.getTime() + input.expiresIn * 1000).toISOString();
  const policy = Buffer.from(JSON.stringify({ expiration, conditions })).toString('base64');
  const signer = new SignatureV4({
    credentials: { accessKeyId: input.accessKeyId, secretAccessKey: input.secret },
    region: input.region,
    service: S3_SERVICE,
    sha256: Sha256Hash,
  });
  const signature = await signer.sign(policy, { signingDate: input.signingDate });
  return {
    url: `${base.origin}${basePath}/${input.bucket}`,
    fields: { ...fields, Policy: policy, 'X-Amz-Signature': signature },
  };
}
