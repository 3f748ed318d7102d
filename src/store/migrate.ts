import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Sql } from './database.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** Arbitrary constant: serialises concurrent start-ups of several gateway instances. */
const MIGRATION_LOCK_ID = 727_001;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(directory = MIGRATIONS_DIR): Migration[] {
  return readdirSync(directory)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.slice(5, -4),
      sql: readFileSync(path.join(directory, file), 'utf8'),
    }));
}

/**
 * Applies every migration not yet recorded, in one transaction under an advisory lock so that
 * instances starting together do not race and a failed migration leaves nothing half-applied.
 * Returns the versions applied now.
 */
export async function runMigrations(sql: Sql, migrations = readMigrations()): Promise<number[]> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`;
    await tx`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`;
    const rows = await tx<{ version: number }[]>`SELECT version FROM schema_migrations`;
    const applied = new Set(rows.map((row) => row.version));
    const newlyApplied: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO schema_migrations (version, name) VALUES (${migration.version}, ${migration.name})`;
      newlyApplied.push(migration.version);
    }
    return newlyApplied;
  });
}
