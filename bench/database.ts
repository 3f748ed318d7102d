/**
 * The database the gateway under test runs on. When a PostgreSQL server answers (BENCH_DATABASE_URL,
 * else postgres@127.0.0.1:5432 with trust authentication, as on the CI machines), every gateway the
 * benchmark starts gets a fresh database of its own there and runs in production mode, as deployed.
 * Otherwise the gateway runs in development mode with its embedded PGlite (in its own process,
 * which shows in its CPU and RSS).
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { onCleanup } from './cleanup.js';

const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  /** DATABASE_URL for the gateway. */
  readonly url: string;
  drop(): Promise<void>;
}

export interface DatabaseServer {
  /** Where it is, without credentials, for the printed header. */
  readonly description: string;
  create(): Promise<BenchDatabase>;
  close(): Promise<void>;
}

function connect(url: string) {
  return postgres(url, { max: 1, connect_timeout: 3, idle_timeout: 5, onnotice: () => undefined });
}

/** The PostgreSQL server to create databases on, or null when none answers. */
export async function findDatabaseServer(): Promise<DatabaseServer | null> {
  const serverUrl = process.env.BENCH_DATABASE_URL || DEFAULT_SERVER_URL;
  const admin = connect(serverUrl);
  try {
    await admin`select 1`;
  } catch {
    await admin.end({ timeout: 1 }).catch(() => undefined);
    return null;
  }
  const where = new URL(serverUrl);
  const closeAdmin = onCleanup(() => admin.end({ timeout: 2 }));
  return {
    description: `PostgreSQL at ${where.host}`,
    create: async () => {
      const name = `gw_bench_${randomBytes(6).toString('hex')}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        drop: onCleanup(() => admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
      };
    },
    close: closeAdmin,
  };
}
