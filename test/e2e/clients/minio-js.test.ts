/** The MinIO JavaScript client against the gateway in front of Ceph RGW: see support/client-suite.ts. */
import { expect, it } from 'vitest';
import { describeClient } from '../support/client-suite.js';
import { minioJsDriver, type MinioJsDriver } from '../support/drivers/minio-js.js';

describeClient('minio-js', minioJsDriver, {
  presignsSigV4: true,
  extra: (suite) => {
    it('virtual-hosted names resolved by the client’s own agent', async (context) => {
      suite.tag(context);
      const world = suite.world();
      const resolver = (suite.driver() as MinioJsDriver).virtualHostResolver;
      // a new connection, so the name is looked up now; only what this call adds is checked
      resolver.dropIdleConnections();
      const before = resolver.resolved.length;
      await suite
        .driver()
        .list({ key: world.tenant.readWrite, addressing: 'virtual' }, world.tenant.bucket, '');
      const added = resolver.resolved.slice(before);
      expect(added.length).toBeGreaterThanOrEqual(1);
      expect(new Set(added)).toEqual(new Set([`${world.tenant.bucket}.${world.domain}`]));
    });
  },
});
