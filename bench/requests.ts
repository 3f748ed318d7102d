/**
 * The small-object requests the load generator replays, signed as the AWS SDK signs them
 * (@smithy/signature-v4, sign.ts) for one endpoint: the Host is signed, so a request signed for
 * the gateway is not the one signed for the floor or RGW, though both carry the same bytes.
 */
import { awsChunkedBytes } from './body-source.js';
import { EMPTY_SHA256, presignTarget, signHeaders, UNSIGNED_PAYLOAD, type Credential } from './sign.js';
import type { ReplayRequest } from './wrk.js';

export const SMALL_OBJECT_BYTES = 4096;
/** What an AWS SDK for JavaScript v3 sends (bot protection looks at it for unsigned requests only). */
const USER_AGENT = 'aws-sdk-js/3.0 ua/2.1 os/linux lang/js md/nodejs#24 api/s3#3.0 m/E';

export const SMALL_SCENARIOS = [
  'GET header-signed',
  'GET presigned',
  'PUT header-signed',
  'PUT presigned',
  'PUT aws-chunked CRC32',
] as const;
export type SmallScenario = (typeof SMALL_SCENARIOS)[number];

export interface Target {
  /** Base URL, `http://127.0.0.1:port`. */
  readonly endpoint: string;
  readonly bucket: string;
  readonly credential: Credential;
}

/** Path-style, already encoded: `/<bucket>/<key>`. */
export function objectPath(bucket: string, key: string): string {
  return `/${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * `scenario` against `key` of `target`. A GET expects a 4 KiB object there; a PUT sends `body`
 * (4 KiB): header-signed with UNSIGNED-PAYLOAD, presigned (UNSIGNED-PAYLOAD in the query), or
 * aws-chunked with a CRC32 trailer (STREAMING-UNSIGNED-PAYLOAD-TRAILER, what current SDKs send).
 */
export async function smallRequest(
  scenario: SmallScenario,
  target: Target,
  key: string,
  body: Buffer,
): Promise<ReplayRequest> {
  const path = objectPath(target.bucket, key);
  const host = new URL(target.endpoint).host;
  const method = scenario.startsWith('GET') ? 'GET' : 'PUT';
  const answerBytes = method === 'GET' ? SMALL_OBJECT_BYTES : 0;
  if (scenario === 'GET presigned' || scenario === 'PUT presigned') {
    const presigned = await presignTarget(target.credential, { method, endpoint: target.endpoint, path });
    return {
      method,
      target: presigned,
      headers: { host, 'user-agent': USER_AGENT },
      ...(method === 'PUT' ? { body } : {}),
      answerBytes,
    };
  }
  if (scenario === 'GET header-signed') {
    const headers = await signHeaders(target.credential, {
      method,
      endpoint: target.endpoint,
      path,
      headers: { 'x-amz-content-sha256': EMPTY_SHA256 },
    });
    return { method, target: path, headers: { ...headers, 'user-agent': USER_AGENT }, answerBytes };
  }
  if (scenario === 'PUT header-signed') {
    const headers = await signHeaders(target.credential, {
      method,
      endpoint: target.endpoint,
      path,
      headers: {
        'x-amz-content-sha256': UNSIGNED_PAYLOAD,
        'content-type': 'application/octet-stream',
        'content-length': String(body.length),
      },
    });
    return { method, target: path, headers: { ...headers, 'user-agent': USER_AGENT }, body, answerBytes };
  }
  const framed = await awsChunkedBytes(body, 'CRC32');
  const headers = await signHeaders(target.credential, {
    method,
    endpoint: target.endpoint,
    path,
    headers: { ...framed.headers, 'content-type': 'application/octet-stream' },
  });
  return {
    method,
    target: path,
    headers: { ...headers, 'user-agent': USER_AGENT },
    body: framed.body,
    answerBytes,
  };
}
