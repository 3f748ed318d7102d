import postgres from 'postgres';
import type { GatewayConfig } from '../config/schema.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';
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
  /** 'embedded' is PGlite in this process; 'postgres' is a real server. */
  readonly kind: 'embedded' | 'postgres';
  /** LISTEN/NOTIFY between connections works only on a real server. */
  readonly supportsListen: boolean;
  /** Where it runs, without credentials, for the start-up log. */
  readonly description: string;
  close(): Promise<void>;
}

function redactUrl(url: string): string {
  const parsed = new URL(url);
  parsed.password = parsed.password ? '***' : '';
  return parsed.toString();
}

const TYPE_OPTIONS = {
  // bigint counters come back as JS numbers; usage figures stay far below 2^53.
  types: { bigint: postgres.BigInt },
} as const;

export function connectPostgres(url: string, poolSize: number): Database {
  const sql = postgres(url, { max: poolSize, onnotice: () => undefined, ...TYPE_OPTIONS });
  return {
    sql,
    kind: 'postgres',
    supportsListen: true,
    description: redactUrl(url),
    close: () => sql.end({ timeout: 5 }),
  };
}

/** Opens the configured database, or an embedded one under the data directory when none is set. */
export async function openDatabase(config: GatewayConfig): Promise<Database> {
  if (config.database.url !== null) return connectPostgres(config.database.url, config.database.poolSize);
  const embedded = await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'));
  return wrapEmbedded(embedded);
}

export function wrapEmbedded(embedded: EmbeddedPostgres): Database {
  // PGlite serves one session at a time; a pool of one keeps transactions from interleaving.
  const sql = postgres(embedded.url, { max: 1, onnotice: () => undefined, ...TYPE_OPTIONS });
  return {
    sql,
    kind: 'embedded',
    supportsListen: false,
    description: `embedded PGlite (${embedded.dataDir ?? 'in memory'})`,
    close: async () => {
      try {
        await sql.end({ timeout: 5 });
      } finally {
        await embedded.stop();
      }
    },
  };
}
