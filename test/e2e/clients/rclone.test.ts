/** rclone (/usr/bin/rclone) against the gateway in front of Ceph RGW: see support/client-suite.ts. */
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeClient, refusal } from '../support/client-suite.js';
import { rcloneDriver, type RcloneDriver } from '../support/drivers/rclone.js';
import { storedEtag } from '../support/world.js';

describeClient('rclone', rcloneDriver, {
  presignsSigV4: true,
  extra: (suite) => {
    it('without no_check_bucket an upload starts with CreateBucket → MethodNotAllowed', async (context) => {
      suite.tag(context);
      const world = suite.world();
      const driver = suite.driver() as RcloneDriver;
      const connection = { key: world.tenant.readWrite, addressing: 'path' as const };
      const before = world.accessLog().length;
      const refused = await refusal(
        driver.putCheckingBucket(
          connection,
          world.tenant.bucket,
          'check-bucket.txt',
          path.join(suite.environment().workDir, 'small.txt'),
        ),
      );
      expect({ code: refused.code, status: refused.status }).toEqual({
        code: 'MethodNotAllowed',
        status: 405,
      });
      // rclone's CreateBucket is the only request: the upload never starts
      const seen = world.accessLog().slice(before);
      expect(seen.map((entry) => [entry.method, entry.target, entry.status, entry.code])).toEqual([
        ['PUT', `/${world.tenant.bucket}`, 405, 'MethodNotAllowed'],
      ]);
      expect(await storedEtag(world, world.tenant.bucket, 'check-bucket.txt')).toBeNull();
    });

    it('default copyto outside the scope: its first request is a HEAD, so only "Forbidden" shows', async (context) => {
      suite.tag(context);
      const world = suite.world();
      const driver = suite.driver() as RcloneDriver;
      const connection = { key: world.tenant.readWrite, addressing: 'path' as const };
      const before = world.accessLog().length;
      const refused = await refusal(
        driver.putDefault(
          connection,
          world.tenant.otherBucket,
          'head-first.txt',
          path.join(suite.environment().workDir, 'small.txt'),
        ),
      );
      expect({ code: refused.code, status: refused.status }).toEqual({ code: 'Forbidden', status: 403 });
      // the gateway did answer the HEAD with the spec's refusal; a HEAD response just has no body to carry it
      const seen = world.accessLog().slice(before);
      expect(seen.map((entry) => [entry.method, entry.status, entry.code])).toEqual([
        ['HEAD', 403, 'AccessDenied'],
      ]);
      expect(await storedEtag(world, world.tenant.otherBucket, 'head-first.txt')).toBeNull();
    });
  },
});
