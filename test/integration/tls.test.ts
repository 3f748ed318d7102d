/**
 * decisions.md, Deployment: with a PEM certificate and key, the storage endpoint and the control
 * plane serve HTTPS (a wildcard certificate covers virtual-hosted buckets), and the refresh cookie
 * is Secure there. The certificate is made for this run with openssl.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../support/gateway.js';
import { createBucket } from '../support/s3/fixtures.js';

const directory = mkdtempSync(path.join(tmpdir(), 'gw-tls-'));
const certFile = path.join(directory, 'cert.pem');
const keyFile = path.join(directory, 'key.pem');
let certificate: Buffer;
let gateway: TestGateway;

beforeAll(async () => {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=s3.localhost',
      '-addext',
      'subjectAltName=DNS:s3.localhost,DNS:*.s3.localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'pipe' },
  );
  certificate = readFileSync(certFile);
  gateway = await startTestGateway({
    GATEWAY_S3_TLS_CERT_FILE: certFile,
    GATEWAY_S3_TLS_KEY_FILE: keyFile,
    GATEWAY_CONTROL_TLS_CERT_FILE: certFile,
    GATEWAY_CONTROL_TLS_KEY_FILE: keyFile,
  });
  await createBucket(gateway, 'sealed');
});
afterAll(async () => {
  await gateway?.stop();
  rmSync(directory, { recursive: true, force: true });
});

/** An agent that trusts only this run's certificate and resolves every name to loopback. */
function trustingAgent(): https.Agent {
  return new https.Agent({
    ca: certificate,
    lookup: (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
      else (callback as (error: null, address: string, family: number) => void)(null, '127.0.0.1', 4);
    },
  });
}

function client(endpoint: string, forcePathStyle: boolean): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle,
    credentials: {
      accessKeyId: gateway.credential.accessKeyId,
      secretAccessKey: gateway.credential.secret,
    },
    maxAttempts: 1,
    requestHandler: { httpsAgent: trustingAgent() },
  });
}

describe('HTTPS when a certificate and key are configured', () => {
  it('serves the storage endpoint over TLS, path-style and virtual-hosted under the wildcard', async () => {
    expect(gateway.s3Url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const port = new URL(gateway.s3Url).port;
    const pathStyle = client(gateway.s3Url, true);
    await pathStyle.send(new PutObjectCommand({ Bucket: 'sealed', Key: 'note.txt', Body: 'over tls' }));
    const virtualHosted = client(`https://s3.localhost:${port}`, false);
    const object = await virtualHosted.send(new GetObjectCommand({ Bucket: 'sealed', Key: 'note.txt' }));
    expect(await object.Body?.transformToString()).toBe('over tls');
  });

  it('serves the control plane over TLS and marks the refresh cookie Secure', async () => {
    expect(gateway.controlUrl).toMatch(/^https:\/\//);
    const body = JSON.stringify({ email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD });
    const answer = await new Promise<{ status: number; cookie: string; json: { token_type?: string } }>(
      (resolve, reject) => {
        const request = https.request(
          `${gateway.controlUrl}/v1/auth/login`,
          {
            method: 'POST',
            agent: trustingAgent(),
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                cookie: (response.headers['set-cookie'] ?? []).join('\n'),
                json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { token_type?: string },
              }),
            );
          },
        );
        request.on('error', reject);
        request.end(body);
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.json.token_type).toBe('Bearer');
    expect(answer.cookie).toMatch(/;\s*Secure/i);
    expect(answer.cookie).toMatch(/;\s*HttpOnly/i);
  });

  it('refuses a client that does not trust the certificate', async () => {
    const untrusting = new S3Client({
      endpoint: gateway.s3Url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: {
        accessKeyId: gateway.credential.accessKeyId,
        secretAccessKey: gateway.credential.secret,
      },
      maxAttempts: 1,
    });
    await expect(
      untrusting.send(new GetObjectCommand({ Bucket: 'sealed', Key: 'note.txt' })),
    ).rejects.toThrow(/certificate/i);
  });
});
