import postgres from 'postgres';
import type { GatewayConfig } from '../config/schema.js';
import type { EmbeddedPostgres } from './embedded-postgres.js';
import path from 'node:path';

export type Sql = postgres.Sql;

/**
 * Repository methods that may run inside a caller's transaction take an `Sql`; a transaction handle is
 * passed through this, since those methods only ever run queries on it.
 */
export function inTransaction(tx: postgres.TransactionSql): Sql {
  return tx as unknown as Sql;
}

export interface Database {
  readonly sql: Sql;
  /**
   * The pool the storage quotas' counters are written through (storage-usage.ts,
   * storage-reservations.ts, storage-uploads.ts). On PostgreSQL its commits do not wait for the WAL to reach the disk
   * (synchronous_commit off): the uploads of a bucket under a quota take turns at its usage row,
   * and a row lock held through each flush (~2 ms here) capped them at a few hundred per second.
   * A commit is still atomic and seen by every instance at once; a crash of the database server
   * may lose the last fraction of a second of counting, which a recount of the bucket restores
   * (README, storage quotas). Everything else commits durably through `sql`.
   */
  readonly counters: Sql;
  /** 'embedded' is PGlite in this process; 'postgres' is a real server. */
  readonly kind: 'embedded' | 'postgres';
  /** LISTEN/NOTIFY between connections works only on a real server. */
  readonly supportsListen: boolean;
  /** Where it runs, without credentials, for the start-up log. */
  readonly description: string;
  /** How another process of this gateway (a storage worker) connects to the same database. */
  readonly shared: SharedDatabase;
  close(): Promise<void>;
}

/** A database opened by the gateway's main process, as its storage workers connect to it. */
export interface SharedDatabase {
  readonly kind: Database['kind'];
  /** postgres:// URL, credentials included: it travels over the workers' private IPC channel only. */
  readonly url: string;
}

function redactUrl(url: string): string {
  const parsed = new URL(url);
  parsed.password = parsed.password ? '***' : '';
  return parsed.toString();
}

const TYPE_OPTIONS = {
  // bigint columns come back as JS bigints; countOf turns them into numbers.
  types: { bigint: postgres.BigInt },
} as const;

/** A bigint column (a byte or object count) as a number: such figures stay far below 2^53. */
export function countOf(value: bigint | null): number | null {
  return value === null ? null : Number(value);
}

/**
 * Seconds a new connection may take. postgres.js waits 30 by default; a database that went away
 * without refusing (a dropped route, a paused VM) would hold every request of an uncached key
 * that long before its 503.
 */
const CONNECT_TIMEOUT_SECONDS = 5;

/**
 * Seconds before a connection that failed is tried again. postgres.js backs off up to 20 s, and a
 * query waits for the next attempt: in an outage an uncached key would wait that long for its 503,
 * and the first requests after the database returned would too. A second at most, with jitter so
 * the instances of a fleet do not reconnect in step.
 */
function reconnectDelaySeconds(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 1) * (0.5 + Math.random() / 2);
}

/** Connections of the counters' pool beside a pool of `poolSize`. */
function countersPoolSize(poolSize: number): number {
  return Math.max(1, Math.ceil(poolSize / 2));
}

export function connectPostgres(url: string, poolSize: number): Database {
  const options = {
    max: poolSize,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    backoff: reconnectDelaySeconds,
    onnotice: () => undefined,
    ...TYPE_OPTIONS,
  };
  const sql = postgres(url, options);
  // Opened on first use, and half the size: its statements are short and take turns at a row anyway.
  const counters = postgres(url, {
    ...options,
    max: countersPoolSize(poolSize),
    connection: { synchronous_commit: 'off' },
  });
  return {
    sql,
    counters,
    kind: 'postgres',
    supportsListen: true,
    description: redactUrl(url),
    shared: { kind: 'postgres', url },
    close: async () => {
      await Promise.all([sql.end({ timeout: 5 }), counters.end({ timeout: 5 })]);
    },
  };
}

/**
 * Opens the configured database, or an embedded one under the data directory when none is set;
 * `processes` is how many processes of this gateway will connect to it (the embedded server
 * accepts that many sessions and a few to spare).
 */
export async function openDatabase(config: GatewayConfig, processes = 1): Promise<Database> {
  if (config.database.url !== null) return connectPostgres(config.database.url, config.database.poolSize);
  // Loaded only here: PGlite is several megabytes of code that a gateway on PostgreSQL, and every
  // storage worker, never runs.
  const { startEmbeddedPostgres } = await import('./embedded-postgres.js');
  const embedded = await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), {
    maxConnections: 4 + 2 * processes,
  });
  return wrapEmbedded(embedded);
}

/** PGlite serves one session at a time; a pool of one per process keeps transactions from interleaving. */
function connectEmbedded(url: string): postgres.Sql {
  return postgres(url, { max: 1, onnotice: () => undefined, ...TYPE_OPTIONS });
}

export function wrapEmbedded(embedded: EmbeddedPostgres): Database {
  const sql = connectEmbedded(embedded.url);
  return {
    sql,
    // One session at a time: the counters share it (PGlite has no disk flush to wait for anyway).
    counters: sql,
    kind: 'embedded',
    supportsListen: false,
    description: `embedded PGlite (${embedded.dataDir ?? 'in memory'})`,
    shared: { kind: 'embedded', url: embedded.url },
    close: async () => {
      try {
        await sql.end({ timeout: 5 });
      } finally {
        await embedded.stop();
      }
    },
  };
}

/** A storage worker's connection to the database its main process opened. */
export function connectShared(shared: SharedDatabase, poolSize: number): Database {
  if (shared.kind === 'postgres') return connectPostgres(shared.url, poolSize);
  const sql = connectEmbedded(shared.url);
  return {
    sql,
    counters: sql,
    kind: 'embedded',
    supportsListen: false,
    description: 'embedded PGlite (in the main process)',
    shared,
    close: () => sql.end({ timeout: 5 }),
  };
}
