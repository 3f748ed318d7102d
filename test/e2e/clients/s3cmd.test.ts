/** s3cmd (/usr/bin/s3cmd) against the gateway in front of Ceph RGW: see support/client-suite.ts. */
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeClient, fetchBytes } from '../support/client-suite.js';
import { s3cmdDriver, type S3cmdDriver } from '../support/drivers/s3cmd.js';

describeClient('s3cmd', s3cmdDriver, {
  // `s3cmd signurl` signs with SigV2 only; the storage endpoint verifies SigV4
  presignsSigV4: false,
  extra: (suite) => {
    it('signurl (SigV2 only) → InvalidRequest naming SigV4', async (context) => {
      suite.tag(context);
      const world = suite.world();
      const driver = suite.driver() as S3cmdDriver;
      const connection = { key: world.tenant.readWrite, addressing: 'path' as const };
      const file = path.join(suite.environment().workDir, 'small.txt');
      await driver.put(connection, world.tenant.bucket, 'signurl/object.txt', file);
      const url = await driver.signurl(connection, world.tenant.bucket, 'signurl/object.txt', 300);
      expect(new URL(url).searchParams.has('AWSAccessKeyId')).toBe(true);
      const answer = await fetchBytes(url);
      expect(answer.status).toBe(400);
      expect(answer.body.toString('utf8')).toContain('<Code>InvalidRequest</Code>');
      expect(answer.body.toString('utf8')).toContain(
        '<Message>The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256: this endpoint accepts only Signature Version 4 (boto3: Config(signature_version=&apos;s3v4&apos;); aws-cli: s3.signature_version = s3v4).</Message>',
      );
      await driver.remove(connection, world.tenant.bucket, 'signurl/object.txt');
    });
  },
});
