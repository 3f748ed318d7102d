/**
 * CORS from the bucket's rules (set through the control plane): preflights need no signature and
 * fail with a 403 error document when no rule names the origin, method and headers; actual
 * responses, errors included, carry the matching rule's headers.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { pathStyleClient } from '../../support/s3/clients.js';
import { createBucket, createOrganisation } from '../../support/s3/fixtures.js';
import { describeRawError, sendRaw, sha256Hex, signedHeaders } from '../../support/s3/raw-requests.js';

const APP = 'https://app.example.com';
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
  await createBucket(gateway, 'uploads', {
    cors: [
      {
        allowedOrigins: [APP, 'https://*.preview.example.com'],
        allowedMethods: ['GET', 'PUT'],
        allowedHeaders: ['content-type', 'x-amz-*', 'authorization'],
        exposeHeaders: ['ETag'],
        maxAgeSeconds: 600,
      },
    ],
  });
  await createBucket(gateway, 'no-rules');
  await pathStyleClient(gateway).send(
    new PutObjectCommand({ Bucket: 'uploads', Key: 'photo.jpg', Body: 'jpg' }),
  );
});
afterAll(async () => {
  await gateway?.stop();
});

function preflight(bucketPath: string, origin: string | null, method: string, requestHeaders = '') {
  return sendRaw(gateway.s3Url, {
    method: 'OPTIONS',
    target: bucketPath,
    headers: {
      'user-agent': 'Mozilla/5.0',
      'access-control-request-method': method,
      ...(origin === null ? {} : { origin }),
      ...(requestHeaders === '' ? {} : { 'access-control-request-headers': requestHeaders }),
    },
  });
}

const refused = {
  status: 403,
  code: 'AccessForbidden',
  message: 'CORSResponse: This CORS request is not allowed.',
  requestIdMatches: true,
};

describe('preflight', () => {
  it('answers an allowed origin, method and headers without any signature', async () => {
    const response = await preflight(
      '/uploads/new.jpg',
      APP,
      'PUT',
      'content-type, x-amz-date, authorization',
    );
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, PUT',
      'access-control-allow-headers': 'content-type, x-amz-date, authorization',
      'access-control-expose-headers': 'ETag',
      'access-control-max-age': '600',
      'access-control-allow-credentials': 'true',
    });
    const wildcard = await preflight('/uploads/new.jpg', 'https://pr-7.preview.example.com', 'GET');
    expect(wildcard.headers['access-control-allow-origin']).toBe('https://pr-7.preview.example.com');
  });

  it('fails with 403 when no rule names the origin, the method or a header', async () => {
    expect(describeRawError(await preflight('/uploads/new.jpg', 'https://evil.example.net', 'PUT'))).toEqual(
      refused,
    );
    expect(describeRawError(await preflight('/uploads/new.jpg', APP, 'DELETE'))).toEqual(refused);
    expect(describeRawError(await preflight('/uploads/new.jpg', APP, 'PUT', 'x-custom-header'))).toEqual(
      refused,
    );
  });

  it('fails with 403 on a bucket without CORS rules', async () => {
    expect(describeRawError(await preflight('/no-rules/file', APP, 'GET'))).toEqual(refused);
  });

  it("of a suspended organisation's bucket: AccountProblem, like every other storage request", async () => {
    const { id } = await createOrganisation(gateway, 'suspended-cors');
    await createBucket(gateway, 'suspended-uploads', {
      organisationId: id,
      public: true,
      cors: [{ allowedOrigins: [APP], allowedMethods: ['GET', 'PUT'] }],
    });
    expect((await preflight('/suspended-uploads/new.jpg', APP, 'PUT')).status).toBe(200);
    await gateway.gateway.context.store.organisations.suspend(id, 'unpaid');
    const response = await preflight('/suspended-uploads/new.jpg', APP, 'PUT');
    expect(describeRawError(response)).toEqual({
      status: 403,
      code: 'AccountProblem',
      message:
        'There is a problem with your account that prevents the operation from completing successfully.',
      requestIdMatches: true,
    });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('needs an Origin', async () => {
    expect(describeRawError(await preflight('/uploads/new.jpg', null, 'GET'))).toEqual({
      status: 400,
      code: 'BadRequest',
      message: 'Insufficient information. Origin request header needed.',
      requestIdMatches: true,
    });
  });
});

describe('actual responses', () => {
  async function signedGet(path: string, origin: string) {
    const headers = await signedHeaders({
      credential: gateway.credential,
      method: 'GET',
      baseUrl: gateway.s3Url,
      path,
      payloadHash: sha256Hex(''),
      headers: { origin },
    });
    return sendRaw(gateway.s3Url, { method: 'GET', target: path, headers });
  }

  it('carry the CORS headers for a matching origin, errors included', async () => {
    const ok = await signedGet('/uploads/photo.jpg', APP);
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(APP);
    expect(ok.headers['access-control-expose-headers']).toBe('ETag');

    const missing = await signedGet('/uploads/missing.jpg', APP);
    expect(missing.status).toBe(404);
    expect(missing.headers['access-control-allow-origin']).toBe(APP);
  });

  it('carry none for an origin no rule names', async () => {
    const response = await signedGet('/uploads/photo.jpg', 'https://evil.example.net');
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});
