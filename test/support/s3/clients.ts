/** AWS SDK clients against a test gateway, with the SDK's default checksum behaviour. */
import http from 'node:http';
import { S3Client, S3ServiceException, type S3ClientConfig } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import type { TestGateway } from '../gateway.js';
import type { TestCredential } from './fixtures.js';

export function pathStyleClient(
  gateway: TestGateway,
  credential: TestCredential = gateway.credential,
  extra: Partial<S3ClientConfig> = {},
): S3Client {
  return new S3Client({
    endpoint: gateway.s3Url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: credential.accessKeyId, secretAccessKey: credential.secret },
    maxAttempts: 1,
    ...extra,
  });
}

/**
 * A virtual-hosted client: the SDK addresses `<bucket>.<domain>:<port>`, and a custom lookup
 * resolves every such name to the loopback gateway (no /etc/hosts entry needed).
 */
export function virtualHostedClient(
  gateway: TestGateway,
  credential: TestCredential = gateway.credential,
): S3Client {
  const port = new URL(gateway.s3Url).port;
  const agent = new http.Agent({
    lookup: (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
      else (callback as (error: null, address: string, family: number) => void)(null, '127.0.0.1', 4);
    },
  });
  return new S3Client({
    endpoint: `http://${gateway.config.s3.domain}:${port}`,
    region: 'us-east-1',
    forcePathStyle: false,
    credentials: { accessKeyId: credential.accessKeyId, secretAccessKey: credential.secret },
    maxAttempts: 1,
    requestHandler: { httpAgent: agent },
  });
}

export interface ExpectedS3Error {
  code: string;
  status: number;
  message?: string;
}

/** Asserts that an SDK call fails with exactly this S3 code, HTTP status and (when given) message. */
export async function expectS3Error(
  call: Promise<unknown>,
  expected: ExpectedS3Error,
): Promise<S3ServiceException> {
  const error = await call.then(
    () => {
      throw new Error(`expected ${expected.code}, the call succeeded`);
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(S3ServiceException);
  const s3Error = error as S3ServiceException;
  expect({ code: s3Error.name, status: s3Error.$metadata.httpStatusCode }).toEqual({
    code: expected.code,
    status: expected.status,
  });
  if (expected.message !== undefined) expect(s3Error.message).toBe(expected.message);
  return s3Error;
}
