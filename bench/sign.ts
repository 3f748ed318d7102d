/**
 * Client-side SigV4 signing for the benchmarks, done the way the AWS SDK does it
 * (@smithy/signature-v4), independently of the gateway's own verifier.
 */
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';

/** SHA-256 and HMAC-SHA-256 on node:crypto, as the AWS SDK gives them to its SigV4 signer. */
const Sha256Hash = Hash.bind(null, 'sha256');

export interface Credential {
  readonly accessKeyId: string;
  readonly secret: string;
}

export const REGION = 'us-east-1';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

export interface SignInput {
  readonly method: string;
  /** Base URL of the endpoint (`http://127.0.0.1:9000`). */
  readonly endpoint: string;
  /** Already-encoded path, `/bucket/key`. */
  readonly path: string;
  /** Headers besides host and x-amz-date (x-amz-content-sha256 among them); all are signed. */
  readonly headers: Record<string, string>;
}

function signer(credential: Credential): SignatureV4 {
  return new SignatureV4({
    service: 's3',
    region: REGION,
    credentials: { accessKeyId: credential.accessKeyId, secretAccessKey: credential.secret },
    sha256: Sha256Hash,
    uriEscapePath: false,
    applyChecksum: false,
  });
}

function httpRequest(input: SignInput, query: Record<string, string> = {}) {
  const url = new URL(input.endpoint);
  return {
    method: input.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    path: input.path,
    query,
    headers: { host: url.host, ...input.headers },
  };
}

/** Header-signed request headers (host, x-amz-date, authorization and the given ones), lower-case names. */
export async function signHeaders(
  credential: Credential,
  input: SignInput,
  signingDate = new Date(),
): Promise<Record<string, string>> {
  const signed = await signer(credential).sign(httpRequest(input), { signingDate });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) headers[name.toLowerCase()] = String(value);
  return headers;
}

/**
 * A presigned request target (`/bucket/key?X-Amz-...`) signing only host, as
 * @aws-sdk/s3-request-presigner makes it (UNSIGNED-PAYLOAD hoisted into the query).
 */
export async function presignTarget(
  credential: Credential,
  input: Omit<SignInput, 'headers'>,
  expiresIn = 3600,
  signingDate = new Date(),
): Promise<string> {
  const presigned = await signer(credential).presign(
    httpRequest({ ...input, headers: { 'x-amz-content-sha256': UNSIGNED_PAYLOAD } }),
    {
      expiresIn,
      signingDate,
    },
  );
  const query = Object.entries(presigned.query ?? {})
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join('&');
  return `${presigned.path}?${query}`;
}
