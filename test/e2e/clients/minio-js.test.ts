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
      const driver = suite.driver() as MinioJsDriver;
      await driver.list({ key: world.tenant.readWrite, addressing: 'virtual' }, world.tenant.bucket, '');
      expect(driver.resolvedHosts).toContain(`${world.tenant.bucket}.${world.domain}`);
      expect(driver.resolvedHosts.every((host) => host.endsWith(`.${world.domain}`))).toBe(true);
    });
  },
});
