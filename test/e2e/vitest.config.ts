import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * End-to-end suite against real services (a Ceph RGW started by scripts/ceph-rgw/up.sh, real S3
 * clients). Run with `npx vitest run --config test/e2e/vitest.config.ts`; the default vitest.config.ts
 * excludes test/e2e.
 */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/e2e/**/*.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // One shared backend and two cores: files run one after the other.
    fileParallelism: false,
  },
});
