import { createHash } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import { S3Client } from '@aws-sdk/client-s3';
import { awsChunkedBody, awsChunkedLength } from '../../support/aws-chunked.js';
import type { E2eBackend } from '../global-setup.js';

/** SHA-256 and HMAC-SHA-256 on node:crypto, as the AWS SDK gives them to its SigV4 signer. */
const Sha256Hash = Hash.bind(null, 'sha256');

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The gateway's settings for the e2e suite's object store (GATEWAY_BACKEND_*). */
export function backendEnv(rgw: E2eBackend): Record<string, string> {
  return {
    GATEWAY_BACKEND_URL: rgw.url,
    GATEWAY_BACKEND_ACCESS_KEY_ID: rgw.accessKeyId,
    GATEWAY_BACKEND_SECRET_ACCESS_KEY: rgw.secretAccessKey,
    GATEWAY_BACKEND_REGION: rgw.region,
  };
}

/** An SDK client for setting up test data (plain uploads, no trailing checksums: RGW 16 refuses them). */
export function sdkClient(rgw: E2eBackend): S3Client {
  return new S3Client({
    endpoint: rgw.url,
    region: rgw.region,
    forcePathStyle: true,
    credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { requestTimeout: 30_000, throwOnRequestTimeout: true },
  });
}

export interface RawRequest {
  method: string;
  /** Already percent-encoded, e.g. `/bucket/100%25`. */
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Send the body with Transfer-Encoding: chunked and no Content-Length. */
  chunked?: boolean;
  /**
   * Sign the body as STREAMING-AWS4-HMAC-SHA256-PAYLOAD (aws-chunked with chunk signatures) in
   * chunks of this many bytes.
   */
  streamingChunkSize?: number;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

const encodeRfc3986 = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Sends one SigV4-signed request exactly as described, through node:http (no SDK in between). */
export async function signedRequest(rgw: E2eBackend, raw: RawRequest): Promise<RawResponse> {
  const url = new URL(rgw.url);
  const signer = new SignatureV4({
    service: 's3',
    region: rgw.region,
    credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
    sha256: Sha256Hash,
    uriEscapePath: false,
    applyChecksum: false,
  });
  const signingDate = new Date();
  const body = raw.body === undefined ? undefined : Buffer.from(raw.body);
  const headers: Record<string, string> = { host: url.host, ...raw.headers };
  const size = raw.streamingChunkSize;
  if (size !== undefined) {
    const data = body ?? Buffer.alloc(0);
    headers['x-amz-content-sha256'] = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
    headers['x-amz-decoded-content-length'] = String(data.length);
    headers['content-encoding'] = 'aws-chunked';
    headers['content-length'] = String(awsChunkedLength(data.length, size, [], { signed: true }));
    const signed = await signer.sign(
      {
        method: raw.method,
        protocol: url.protocol,
        hostname: url.hostname,
        port: Number(url.port),
        path: raw.path,
        query: raw.query ?? {},
        headers,
      },
      { signingDate },
    );
    const encoded = awsChunkedBody(data, size, [], {
      signing: {
        secretAccessKey: rgw.secretAccessKey,
        region: rgw.region,
        amzDate: signed.headers['x-amz-date']!,
        seedSignature: /Signature=([0-9a-f]{64})/.exec(signed.headers.authorization ?? '')![1]!,
      },
    });
    return send(url, raw, signed.headers, encoded);
  }
  if (body !== undefined && !raw.chunked) headers['content-length'] = String(body.length);
  headers['x-amz-content-sha256'] ??= body === undefined ? sha256Hex('') : sha256Hex(body);
  const signed = await signer.sign(
    {
      method: raw.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: raw.path,
      query: raw.query ?? {},
      headers,
    },
    { signingDate },
  );
  return send(url, raw, signed.headers, body);
}

function send(
  url: URL,
  raw: RawRequest,
  headers: Record<string, string>,
  body: Buffer | undefined,
): Promise<RawResponse> {
  const query = Object.entries(raw.query ?? {})
    .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`)
    .join('&');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: Number(url.port),
        method: raw.method,
        path: query ? `${raw.path}?${query}` : raw.path,
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
    if (raw.chunked) req.setHeader('transfer-encoding', 'chunked');
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The text of the first <Name>…</Name> element in an XML body, or null. */
export function xmlElement(body: string, name: string): string | null {
  const match = new RegExp(`<${name}>([^<]*)</${name}>|<${name}/>`).exec(body);
  if (match === null) return null;
  return match[1] ?? '';
}
