import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseScope } from '../../../src/access/scope.js';
import { createLogger } from '../../../src/observability/logger.js';
import { createStore, type Store } from '../../../src/store/index.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { findSecretsInLogs } from '../../support/log-audit.js';

function captureLogs(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  return { lines, logger: createLogger('info', sink) };
}

describe('the log audit every test gateway runs at stop', () => {
  let database: TestDatabase;
  let store: Store;
  const secret = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/Ab';

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await createStore(database.connect(), {
      masterKey: randomBytes(32),
      cache: { ttlMs: 1000, maxEntries: 10 },
    });
    const organisation = await store.organisations.create('audited');
    await store.credentials.create({
      accessKeyId: 'GWK1AUDITAUDITAUDIT2',
      organisationId: organisation.id,
      name: 'audited',
      secret,
      scope: normaliseScope({ buckets: ['*'], level: 'read-only' }),
      expiresAt: null,
      createdBy: null,
    });
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('finds a stored credential secret, a JWT and a signature', async () => {
    const { lines, logger } = captureLogs();
    logger.info({ note: `oops ${secret}` }, 'leak');
    logger.info(
      {
        header:
          'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      },
      'leak',
    );
    logger.info({ url: `/b/k?X-Amz-Signature=${'a'.repeat(64)}` }, 'leak');
    const findings = await findSecretsInLogs(lines, store, []);
    expect(findings.some((finding) => finding.includes('known secret'))).toBe(true);
    expect(findings.some((finding) => finding.includes('a JWT'))).toBe(true);
    expect(findings.some((finding) => finding.includes('presigned signature'))).toBe(true);
  });

  it('lets redacted fields and ordinary lines through', async () => {
    const { lines, logger } = captureLogs();
    logger.info(
      {
        password: 'hunter2hunter2',
        body: { secret: 'x'.repeat(40) },
        requestId: randomBytes(16).toString('hex'),
      },
      'fine',
    );
    expect(lines.join('\n')).toContain('[redacted]');
    expect(await findSecretsInLogs(lines, store, [])).toEqual([]);
  });
});
