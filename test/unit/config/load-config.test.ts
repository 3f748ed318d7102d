import { describe, expect, it } from 'vitest';
import { parseListenAddress } from '../../../src/config/addresses.js';
import { ConfigError, loadConfig, redactCredentials } from '../../../src/config/load.js';
import { storageRunsInWorkers, storageWorkerCount } from '../../../src/config/schema.js';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected the configuration to be refused');
}

describe('configuration', () => {
  it('runs in local mode with no environment at all', () => {
    const config = loadConfig({});
    expect(config.mode).toBe('development');
    expect(config.database.url).toBeNull();
    expect(config.backend.url).toBeNull();
    expect(config.listen).toEqual({
      s3: '127.0.0.1:9000',
      control: '127.0.0.1:9001',
      metrics: '127.0.0.1:9464',
    });
    expect(config.s3.regions).toEqual(['us-east-1', 'auto']);
    expect(config.s3.botProtection).toBe('anonymous');
  });

  it('lets environment variables override the defaults, with lists and numbers parsed', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://gw@db:5432/gw',
      GATEWAY_S3_REGIONS: 'eu-west-1, us-east-1',
      GATEWAY_CACHE_TTL_SECONDS: '5',
      GATEWAY_S3_LISTEN: '0.0.0.0:8080',
    });
    expect(config.database.url).toBe('postgres://gw@db:5432/gw');
    expect(config.s3.regions).toEqual(['eu-west-1', 'us-east-1']);
    expect(config.cache.ttlSeconds).toBe(5);
    expect(parseListenAddress(config.listen.s3)).toEqual({ host: '0.0.0.0', port: 8080 });
  });

  it('names every bad value by its environment variable, all at once', () => {
    const problems = problemsOf({
      GATEWAY_S3_LISTEN: 'nonsense',
      GATEWAY_CACHE_TTL_SECONDS: 'soon',
      GATEWAY_BOT_PROTECTION: 'maybe',
      GATEWAY_BACKEND_URL: 'ftp://store',
    });
    expect(problems).toHaveLength(4);
    expect(problems.find((problem) => problem.startsWith('GATEWAY_S3_LISTEN:'))).toContain('host:port');
    expect(problems.find((problem) => problem.startsWith('GATEWAY_CACHE_TTL_SECONDS:'))).toContain('"soon"');
    expect(problems.some((problem) => problem.startsWith('GATEWAY_BOT_PROTECTION:'))).toBe(true);
    expect(problems.some((problem) => problem.startsWith('GATEWAY_BACKEND_URL:'))).toBe(true);
  });

  it('wants the backend URL and both keys together', () => {
    const problems = problemsOf({ GATEWAY_BACKEND_URL: 'http://127.0.0.1:7480' });
    expect(problems).toEqual([
      'GATEWAY_BACKEND_URL: the backend URL, access key id and secret access key must be set together (got "http://127.0.0.1:7480")',
    ]);
  });

  it('refuses production mode without a master key, token secret, database and backend', () => {
    const problems = problemsOf({ GATEWAY_MODE: 'production' });
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual(
      ['DATABASE_URL', 'GATEWAY_BACKEND_URL', 'GATEWAY_JWT_SECRET', 'GATEWAY_MASTER_KEY'].sort(),
    );
    expect(problems.find((problem) => problem.startsWith('GATEWAY_MASTER_KEY'))).toBe(
      'GATEWAY_MASTER_KEY: is required in production mode',
    );
  });

  it('accepts a complete production configuration', () => {
    const config = loadConfig({
      GATEWAY_MODE: 'production',
      GATEWAY_MASTER_KEY: 'ab'.repeat(32),
      GATEWAY_JWT_SECRET: 'x'.repeat(48),
      DATABASE_URL: 'postgresql://gw:pw@db/gw',
      GATEWAY_BACKEND_URL: 'http://rgw:7480',
      GATEWAY_BACKEND_ACCESS_KEY_ID: 'backend',
      GATEWAY_BACKEND_SECRET_ACCESS_KEY: 'backend-secret',
    });
    expect(config.mode).toBe('production');
  });

  it('refuses a master key that is not 32 bytes without echoing it', () => {
    const problems = problemsOf({ GATEWAY_MASTER_KEY: 'too-short-secret' });
    expect(problems).toEqual(['GATEWAY_MASTER_KEY: expected 32 bytes as 64 hex characters or base64']);
  });

  it('never echoes the password of a bad DATABASE_URL or backend URL', () => {
    const problems = problemsOf({
      DATABASE_URL: 'mysql://gateway:hunter2-password@db:3306/gw',
      GATEWAY_BACKEND_URL: 'ftp://store-user:store-pass@store',
      GATEWAY_BACKEND_ACCESS_KEY_ID: 'backend',
      GATEWAY_BACKEND_SECRET_ACCESS_KEY: 'backend-secret',
    });
    expect(problems).toEqual([
      'DATABASE_URL: expected a postgres:// URL (got "mysql://gateway:***@db:3306/gw")',
      'GATEWAY_BACKEND_URL: expected an http:// or https:// URL (got "ftp://store-user:***@store")',
    ]);
    const missingScheme = problemsOf({ DATABASE_URL: 'postgres//gateway:hunter2@db/gw' });
    expect(missingScheme.join('\n')).not.toContain('hunter2');
    expect(missingScheme[0]).toMatch(/^DATABASE_URL: expected a postgres:\/\/ URL \(got ".*@db\/gw"\)$/);
  });

  it('redacts the user information of URL-like values, and leaves everything else alone', () => {
    expect(redactCredentials('postgres://gw:s3cr%40t@db:5432/gw')).toBe('postgres://gw:***@db:5432/gw');
    expect(redactCredentials('postgres://gw:p@ss@db/gw')).toBe('postgres://gw:***@db/gw');
    expect(redactCredentials('https://ghp_token@host/x')).toBe('https://***@host/x');
    expect(redactCredentials('gw:secret@db:5432/gw')).toBe('gw:***@db:5432/gw');
    expect(redactCredentials('postgres://db:5432/gw')).toBe('postgres://db:5432/gw');
    expect(redactCredentials('admin@example.test')).toBe('admin@example.test');
    expect(redactCredentials('soon')).toBe('soon');
  });

  it('refuses two listeners on the same address, naming both variables', () => {
    expect(
      problemsOf({ GATEWAY_S3_LISTEN: '127.0.0.1:9100', GATEWAY_CONTROL_LISTEN: '127.0.0.1:9100' }),
    ).toEqual([
      'GATEWAY_CONTROL_LISTEN: must not bind the same address as GATEWAY_S3_LISTEN (127.0.0.1:9100); the storage endpoint, control plane and metrics each need their own port (got "127.0.0.1:9100")',
    ]);
    const wildcard = problemsOf({ GATEWAY_METRICS_LISTEN: '0.0.0.0:9001' });
    expect(wildcard).toHaveLength(1);
    expect(wildcard[0]).toMatch(
      /^GATEWAY_METRICS_LISTEN: must not bind the same address as GATEWAY_CONTROL_LISTEN \(127\.0\.0\.1:9001\)/,
    );
    // All interfaces on 9000 clash with each other and with the storage default 127.0.0.1:9000.
    const all = problemsOf({ GATEWAY_METRICS_LISTEN: ':9000', GATEWAY_CONTROL_LISTEN: ':9000' });
    expect(all.map((problem) => problem.split(': ')[0])).toEqual([
      'GATEWAY_CONTROL_LISTEN',
      'GATEWAY_METRICS_LISTEN',
      'GATEWAY_METRICS_LISTEN',
    ]);
  });

  it('allows the same port on different hosts, and port 0 (a free port each) everywhere', () => {
    expect(
      loadConfig({ GATEWAY_S3_LISTEN: '127.0.0.1:9100', GATEWAY_CONTROL_LISTEN: '127.0.0.2:9100' }).listen,
    ).toMatchObject({ s3: '127.0.0.1:9100', control: '127.0.0.2:9100' });
    expect(
      loadConfig({
        GATEWAY_S3_LISTEN: '127.0.0.1:0',
        GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
        GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
      }).listen.metrics,
    ).toBe('127.0.0.1:0');
  });

  it('bounds the per-organisation metric label by a validated setting', () => {
    expect(loadConfig({}).metrics.maxOrganisationLabels).toBe(50);
    expect(loadConfig({ GATEWAY_METRICS_MAX_ORGANISATIONS: '200' }).metrics.maxOrganisationLabels).toBe(200);
    expect(loadConfig({ GATEWAY_METRICS_MAX_ORGANISATIONS: '0' }).metrics.maxOrganisationLabels).toBe(0);
    for (const bad of ['-1', 'many', '100001']) {
      const problems = problemsOf({ GATEWAY_METRICS_MAX_ORGANISATIONS: bad });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^GATEWAY_METRICS_MAX_ORGANISATIONS: /);
    }
  });

  it('allows a stricter clock skew than fifteen minutes, never a looser one', () => {
    expect(loadConfig({}).s3.maxSkewSeconds).toBe(900);
    expect(loadConfig({ GATEWAY_S3_MAX_SKEW_SECONDS: '60' }).s3.maxSkewSeconds).toBe(60);
    expect(problemsOf({ GATEWAY_S3_MAX_SKEW_SECONDS: '901' })).toEqual([
      'GATEWAY_S3_MAX_SKEW_SECONDS: at most 900 (the fifteen minutes of clock skew the S3 protocol allows) (got "901")',
    ]);
  });

  it('has no shutdown drain by default, and takes one from GATEWAY_SHUTDOWN_DRAIN_SECONDS', () => {
    expect(loadConfig({}).shutdownDrainSeconds).toBe(0);
    expect(loadConfig({ GATEWAY_SHUTDOWN_DRAIN_SECONDS: '5' }).shutdownDrainSeconds).toBe(5);
    expect(problemsOf({ GATEWAY_SHUTDOWN_DRAIN_SECONDS: '-1' })[0]).toMatch(
      /^GATEWAY_SHUTDOWN_DRAIN_SECONDS: /,
    );
  });

  it('serves storage from one process per core in production and one locally, unless GATEWAY_WORKERS says', () => {
    const production = {
      GATEWAY_MODE: 'production',
      GATEWAY_MASTER_KEY: 'a'.repeat(64),
      GATEWAY_JWT_SECRET: 'j'.repeat(40),
      DATABASE_URL: 'postgres://gateway@db/gateway',
      GATEWAY_BACKEND_URL: 'http://rgw:7480',
      GATEWAY_BACKEND_ACCESS_KEY_ID: 'key',
      GATEWAY_BACKEND_SECRET_ACCESS_KEY: 'secret',
    };
    expect(storageWorkerCount(loadConfig(production), 4)).toBe(4);
    expect(storageWorkerCount(loadConfig(production), 1)).toBe(1);
    expect(storageWorkerCount(loadConfig({}), 4)).toBe(1);
    expect(storageWorkerCount(loadConfig({ ...production, GATEWAY_WORKERS: '2' }), 8)).toBe(2);
    expect(storageWorkerCount(loadConfig({ GATEWAY_WORKERS: '3' }), 1)).toBe(3);
    for (const bad of ['0', 'all', '257']) {
      expect(problemsOf({ GATEWAY_WORKERS: bad })[0]).toMatch(/^GATEWAY_WORKERS: /);
    }
    // Production keeps storage apart from the control plane even with one worker.
    expect(storageRunsInWorkers(loadConfig(production), 1)).toBe(true);
    expect(storageRunsInWorkers(loadConfig({}), 1)).toBe(false);
    expect(storageRunsInWorkers(loadConfig({}), 2)).toBe(true);
  });
});
