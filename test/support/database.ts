import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { connectPostgres, wrapEmbedded, type Database } from '../../src/store/database.js';
import { startEmbeddedPostgres } from '../../src/store/embedded-postgres.js';

export function realPostgresUrl(): string | null {
  const url = process.env.GATEWAY_TEST_POSTGRES_URL;
  return url === undefined || url === '' ? null : url;
}

/** CI=true (or 1): whatever a test needs must be there, since nobody reads the list of skipped tests. */
function underCi(): boolean {
  return ['true', '1'].includes((process.env.CI ?? '').toLowerCase());
}

/**
 * Whether a real PostgreSQL server answers, for `describe.runIf` / `it.runIf` of tests that need
 * one (two instances on one database, LISTEN/NOTIFY, a production start: PGlite serves one session
 * of one process). Without one they are skipped on a developer's machine; under CI this also adds
 * a failing test that says what `needs` one, since a skip there would pass unnoticed.
 */
export function realPostgresFor(needs: string): boolean {
  if (realPostgresUrl() !== null) return true;
  if (underCi()) {
    describe(`${needs}, under CI`, () => {
      it('has a real PostgreSQL to run on', () => {
        expect.fail(
          `CI is set but no PostgreSQL answered (DATABASE_URL, or 127.0.0.1:5432): ${needs} need one and must not be skipped in CI`,
        );
      });
    });
  }
  return false;
}

export interface TestDatabase {
  /** A postgres:// URL of a database no other test uses. */
  url: string;
  kind: 'postgres' | 'embedded';
  /** Opens a new connection pool on it (each call a separate pool, like a separate gateway instance). */
  connect(poolSize?: number): Database;
  drop(): Promise<void>;
}

/** A fresh, empty database: a new database on the real server when there is one, else PGlite in memory. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = realPostgresUrl();
  if (serverUrl !== null) {
    const name = `gw_test_${randomBytes(6).toString('hex')}`;
    const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const pools: Database[] = [];
    return {
      url: url.toString(),
      kind: 'postgres',
      connect: (poolSize = 4) => {
        const db = connectPostgres(url.toString(), poolSize);
        pools.push(db);
        return db;
      },
      drop: async () => {
        await Promise.all(pools.map((db) => db.close().catch(() => undefined)));
        await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end({ timeout: 1 });
      },
    };
  }
  const embedded = await startEmbeddedPostgres(null);
  let opened: Database | null = null;
  return {
    url: embedded.url,
    kind: 'embedded',
    connect: () => {
      // PGlite serves one session at a time; a second pool would interleave with the first.
      if (opened !== null) throw new Error('the embedded test database supports one pool');
      opened = wrapEmbedded(embedded);
      return opened;
    },
    drop: async () => {
      if (opened !== null) await opened.close();
      else await embedded.stop();
    },
  };
}
