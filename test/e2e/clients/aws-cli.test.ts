/** aws-cli v2 (/usr/bin/aws) against the gateway in front of Ceph RGW: see support/client-suite.ts. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeClient } from '../support/client-suite.js';
import { awsCliDriver } from '../support/drivers/aws-cli.js';
import { isolatedEnv, runProcess } from '../support/subprocess.js';

describeClient('aws-cli', awsCliDriver, {
  presignsSigV4: true,
  extra: (suite) => {
    it('virtual-hosted presigned GET (fetched with curl --resolve)', async (context) => {
      suite.tag(context);
      const world = suite.world();
      const driver = suite.driver();
      const virtual = { key: world.tenant.readWrite, addressing: 'virtual' as const };
      const { workDir } = suite.environment();
      await driver.put(
        virtual,
        world.tenant.bucket,
        'virtual/presigned.txt',
        path.join(workDir, 'small.txt'),
      );
      const url = await driver.presignGet!(virtual, world.tenant.bucket, 'virtual/presigned.txt', 300);
      const host = `${world.tenant.bucket}.${world.domain}`;
      expect(new URL(url).host).toBe(`${host}:${world.s3Port}`);
      const curl = await runProcess(
        '/usr/bin/curl',
        ['--silent', '--show-error', '--fail', '--resolve', `${host}:${world.s3Port}:127.0.0.1`, url],
        { env: isolatedEnv(workDir) },
      );
      expect(curl.stderr).toBe('');
      expect(curl.stdout).toBe(readFileSync(path.join(workDir, 'small.txt'), 'utf8'));
      await driver.remove(virtual, world.tenant.bucket, 'virtual/presigned.txt');
    });
  },
});
