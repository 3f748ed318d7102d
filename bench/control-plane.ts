/**
 * What a user does before using the storage endpoint, through the control plane's /v1 API (shapes
 * in openapi/openapi.json): log in, create a bucket, create a read-write storage credential scoped
 * to it (its secret is returned this once).
 */
import type { Credential } from './sign.js';

const TIMEOUT_MS = 30_000;

async function call<T>(
  controlUrl: string,
  method: string,
  path: string,
  body: object,
  token?: string,
): Promise<T> {
  const response = await fetch(`${controlUrl}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

export interface BucketAccess {
  readonly bucket: string;
  readonly credential: Credential;
}

export async function createBucketWithCredential(
  controlUrl: string,
  login: { email: string; password: string },
  bucket: string,
): Promise<BucketAccess> {
  const { access_token: token } = await call<{ access_token: string }>(
    controlUrl,
    'POST',
    '/v1/auth/login',
    login,
  );
  await call(controlUrl, 'POST', '/v1/buckets', { name: bucket }, token);
  const created = await call<{ accessKeyId: string; secret: string }>(
    controlUrl,
    'POST',
    '/v1/credentials',
    { name: 'benchmark', scope: { buckets: [bucket], level: 'read-write' } },
    token,
  );
  return { bucket, credential: { accessKeyId: created.accessKeyId, secret: created.secret } };
}
