import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * End-to-end suite against real services (a Ceph RGW started by scripts/ceph-rgw/up.sh, PostgreSQL:
 * the one answering on DATABASE_URL or 127.0.0.1:5432, else one started by scripts/postgres/up.sh;
 * real S3 clients and a headless Chromium). Run with
 * `npm run test:e2e`; the default vitest.config.ts excludes test/e2e. The per-client results table
 * is printed at the end and written to test/e2e/.results.md.
 */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../..', import.meta.url)),
    include: ['test/e2e/**/*.test.ts'],
    // PostgreSQL (started when none answers; no PGlite fallback with CI=true), then the RGW cluster
    globalSetup: ['test/e2e/global-setup.ts'],
    reporters: ['default', './test/e2e/support/results-reporter.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // One shared backend and two cores: files run one after the other.
    fileParallelism: false,
  },
});
