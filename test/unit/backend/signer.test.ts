import { describe, expect, it } from 'vitest';
import { BackendSigner } from '../../../src/backend/signer.js';
import { encodeQuery } from '../../../src/protocol/query.js';
import { verifyTarget } from '../../support/sigv4.js';

const backend = {
  endpoint: new URL('http://127.0.0.1:7480'),
  region: 'us-east-1',
  credentials: { accessKeyId: 'BACKENDKEY', secretAccessKey: 'backend-secret' },
};

async function verifies(
  signed: { target: string; headers: Record<string, string> },
  method: string,
  now: Date,
) {
  return verifyTarget(
    { method, rawTarget: signed.target, headers: signed.headers, now },
    async (id) => (id === 'BACKENDKEY' ? { secrets: ['backend-secret'] } : null),
    { allowedRegions: ['us-east-1'] },
  );
}

describe('BackendSigner', () => {
  it('signs every forwarded header over the encoded path, verifiable as S3 verifies it', async () => {
    const now = new Date();
    const signed = await new BackendSigner(backend).sign(
      {
        method: 'PUT',
        path: '/b-1/a%20b/c%2Bd/%E6%97%A5',
        query: [
          { name: 'partNumber', value: '1', bare: false },
          { name: 'uploadId', value: 'a+b/c', bare: false },
        ],
        headers: { 'content-length': '5', 'cache-control': 'no-cache', 'x-amz-meta-a': 'b  c' },
      },
      now.getTime(),
    );
    expect(signed.target).toBe('/b-1/a%20b/c%2Bd/%E6%97%A5?partNumber=1&uploadId=a%2Bb%2Fc');
    expect(signed.headers.host).toBe('127.0.0.1:7480');
    expect(signed.headers['x-amz-content-sha256']).toBe('UNSIGNED-PAYLOAD');
    expect(signed.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=BACKENDKEY\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=cache-control;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-meta-a, Signature=[0-9a-f]{64}$/,
    );
    const result = await verifies(signed, 'PUT', now);
    expect(result.ok).toBe(true);
  });

  it('sends bare subresources bare and still signs them as `name=`', async () => {
    const now = new Date();
    const signed = await new BackendSigner(backend).sign(
      { method: 'POST', path: '/b-1/k', query: [{ name: 'uploads', value: '', bare: true }], headers: {} },
      now.getTime(),
    );
    expect(signed.target).toBe('/b-1/k?uploads');
    expect((await verifies(signed, 'POST', now)).ok).toBe(true);
  });

  it('prefixes the path of a backend mounted under one', async () => {
    const signer = new BackendSigner({ ...backend, endpoint: new URL('https://store.example/s3/') });
    const signed = await signer.sign({ method: 'GET', path: '/b-1/k', query: [], headers: {} });
    expect(signed.target).toBe('/s3/b-1/k');
    expect(signed.headers.host).toBe('store.example');
  });

  it('encodes the query the SigV4 way', () => {
    expect(
      encodeQuery([
        { name: 'prefix', value: "a b!'()*~", bare: false },
        { name: 'delete', value: '', bare: true },
      ]),
    ).toBe('prefix=a%20b%21%27%28%29%2A~&delete');
  });
});
