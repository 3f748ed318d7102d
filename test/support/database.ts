import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { connectPostgres, wrapEmbedded, type Database } from '../../src/store/database.js';
import { startEmbeddedPostgres } from '../../src/store/embedded-postgres.js';

export function realPostgresUrl(): string | null {
  const url = process.env.GATEWAY_TEST_POSTGRES_URL;
  return url === undefined || url === '' ? null : url;
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
