/**
 * An upload whose body arrives in two halves, the second only when the test says: for the orders
 * of events a client cannot otherwise force, such as a part sent twice whose first send finishes
 * last (ceph/s3-tests' resent part).
 */
import http from 'node:http';
import type { TestCredential } from './fixtures.js';
import { queryString, signedHeaders } from './raw-requests.js';

export interface HeldUpload {
  /** Sends the rest of the body; resolves with the status and body of the answer. */
  finish(): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>;
}

/** A signed PUT (UNSIGNED-PAYLOAD) of `body`, of which only the first `sentFirst` bytes go out now. */
export async function startHeldPut(options: {
  baseUrl: string;
  credential: TestCredential;
  /** Path as sent (encoded). */
  path: string;
  query: Record<string, string>;
  body: Buffer;
  sentFirst: number;
}): Promise<HeldUpload> {
  const { baseUrl, credential, path, query, body, sentFirst } = options;
  const headers = await signedHeaders({
    credential,
    method: 'PUT',
    baseUrl,
    path,
    query,
    headers: { 'content-length': String(body.length) },
    payloadHash: 'UNSIGNED-PAYLOAD',
  });
  const target = new URL(baseUrl);
  const request = http.request({
    host: target.hostname,
    port: target.port,
    method: 'PUT',
    path: `${path}${queryString(query)}`,
    headers: { ...headers, 'user-agent': 'held-upload-test' },
  });
  const answered = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      request.once('error', reject);
      request.once('response', (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.once('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
        response.once('error', reject);
      });
    },
  );
  // Keep a refusal from going unhandled before the test asks for it.
  answered.catch(() => undefined);
  await new Promise<void>((resolve, reject) =>
    request.write(body.subarray(0, sentFirst), (error) => (error ? reject(error) : resolve())),
  );
  return {
    finish: () => {
      request.end(body.subarray(sentFirst));
      return answered;
    },
  };
}
