/** boto3 (Debian's python3-boto3 under /usr/bin/python3) against the gateway in front of Ceph RGW. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeClient, fetchBytes } from '../support/client-suite.js';
import { boto3Driver, type Boto3Driver } from '../support/drivers/boto3.js';

describeClient('boto3', boto3Driver, {
  presignsSigV4: true,
  extra: (suite) => {
    it('presigned GET with the library default (SigV2 in boto3 1.26) → InvalidRequest naming SigV4', async (context) => {
      suite.tag(context);
      const world = suite.world();
      const driver = suite.driver() as Boto3Driver;
      const connection = { key: world.tenant.readWrite, addressing: 'path' as const };
      const file = path.join(suite.environment().workDir, 'small.txt');
      await driver.put(connection, world.tenant.bucket, 'sigv2/object.txt', file);
      const url = await driver.presignGetWithDefaults(
        connection,
        world.tenant.bucket,
        'sigv2/object.txt',
        300,
      );
      expect(new URL(url).searchParams.has('AWSAccessKeyId')).toBe(true);
      const answer = await fetchBytes(url);
      expect(answer.status).toBe(400);
      expect(answer.body.toString('utf8')).toContain('<Code>InvalidRequest</Code>');
      expect(answer.body.toString('utf8')).toContain(
        '<Message>The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256: this endpoint accepts only Signature Version 4 (boto3: Config(signature_version=&apos;s3v4&apos;); aws-cli: s3.signature_version = s3v4).</Message>',
      );
      // the same object through a SigV4 URL (signature_version='s3v4')
      const v4 = await fetchBytes(
        await driver.presignGet!(connection, world.tenant.bucket, 'sigv2/object.txt', 300),
      );
      expect(v4.body.equals(readFileSync(file))).toBe(true);
      await driver.remove(connection, world.tenant.bucket, 'sigv2/object.txt');
    });
  },
});
