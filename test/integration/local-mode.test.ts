import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import { startGateway } from '../../src/runtime.js';

/** A gateway that logs nothing, access lines included. */
function quiet(): { logger: Logger; accessLog: Logger } {
  const logger = createLogger('silent');
  return { logger, accessLog: logger };
}

// Three starts of the embedded database and object store: a few seconds idle, near 30 s (the suite's
// default timeout) on a loaded 2-core machine. The bound is for a hang, not for speed.
describe('local mode (no DATABASE_URL, no backend configured)', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-local-'));
  const env = {
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_S3_LISTEN: '127.0.0.1:0',
    GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
    GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
  };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const lines: string[] = [];
  let first: Awaited<ReturnType<typeof startGateway>> | undefined;
  let firstCredential = '';

  beforeAll(async () => {
    const config = loadConfig(env);
    expect(config.database.url).toBeNull();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        callback();
      },
    });
    const logger = createLogger('info', sink);
    first = await startGateway(config, { logger, accessLog: logger });
    firstCredential = first.bootstrap.created?.credential.accessKeyId ?? '';
  });
  afterAll(async () => {
    await first?.stop();
  });

  function running(): NonNullable<typeof first> {
    if (first === undefined) throw new Error('the first gateway did not start');
    return first;
  }

  it('runs on the embedded PGlite and s3rver, and says so when it starts', () => {
    expect(running().context.store.db.kind).toBe('embedded');
    const started = lines
      .map((line) => JSON.parse(line) as { msg?: string; database?: string; backend?: string })
      .find((line) => line.msg?.startsWith('gateway started'));
    expect(started?.msg).toBe('gateway started in local mode (embedded services under the data directory)');
    expect(started?.database).toMatch(/^embedded PGlite/);
    expect(started?.backend).toMatch(/^embedded s3rver/);
  });

  it('creates the admin with a generated password and a first storage key on its first start', () => {
    const created = running().bootstrap.created;
    expect(created?.adminEmail).toBe('admin@localhost');
    expect(created?.generatedPassword).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(firstCredential).toMatch(/^GWK1[A-Z2-7]{16}$/);
  });

  it('answers S3 XML on the storage listener', async () => {
    const s3 = await fetch(`${running().urls.s3}/`, { headers: { 'user-agent': 'test' } });
    expect(s3.headers.get('content-type')).toContain('xml');
    expect(await s3.text()).toMatch(
      /<Error><Code>[A-Za-z]+<\/Code>.*<RequestId>[^<]+<\/RequestId><\/Error>$/,
    );
  });

  it('serves metrics on the metrics listener', async () => {
    const metrics = await fetch(`${running().urls.metrics}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('gateway_s3_requests_total');
  });

  it('refuses a second gateway on the same data directory', async () => {
    // A second gateway on the same data directory would corrupt the embedded database.
    await expect(startGateway(loadConfig(env), quiet())).rejects.toThrow(/in use by another gateway process/);
  });

  it('keeps its data across a restart, and bootstraps only once', async () => {
    await running().stop();
    first = undefined;
    const second = await startGateway(loadConfig(env), quiet());
    try {
      expect(second.bootstrap.created).toBeNull();
      const credential = await second.context.store.credentials.find(firstCredential);
      expect(credential?.name).toBe('bootstrap');
      expect(credential?.secret).toHaveLength(40);
    } finally {
      await second.stop();
    }
  });
});
