import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/store/database.js';
import { readMigrations, runMigrations } from '../../../src/store/migrate.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';

describe('migrations', () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.connect();
  });
  afterAll(() => database.drop());

  it('apply every migration once, in order, and record them', async () => {
    const all = readMigrations();
    expect(all.map((migration) => migration.version)).toEqual(
      [...all.map((migration) => migration.version)].sort((a, b) => a - b),
    );
    expect(await runMigrations(db.sql)).toEqual(all.map((migration) => migration.version));
    expect(await runMigrations(db.sql)).toEqual([]);
    const recorded = await db.sql<
      { version: number }[]
    >`SELECT version FROM schema_migrations ORDER BY version`;
    expect(recorded.map((row) => row.version)).toEqual(all.map((migration) => migration.version));
  });

  it('create the tables the gateway relies on', async () => {
    const rows = await db.sql<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`;
    const tables = rows.map((row) => row.table_name);
    for (const table of [
      'users',
      'organisations',
      'memberships',
      'credentials',
      'buckets',
      'cors_rule_sets',
      'sessions',
      'refresh_tokens',
      'invitations',
      'password_reset_tokens',
      'audit_log',
      'usage_counters',
      'login_attempts',
    ]) {
      expect(tables).toContain(table);
    }
  });

  it('keep organisation status to active or suspended', async () => {
    await expect(
      db.sql`INSERT INTO organisations (id, name, status) VALUES (gen_random_uuid(), 'x', 'deleted')`,
    ).rejects.toThrow(/check constraint/);
  });

  it('roll back a failing migration completely', async () => {
    const broken = [
      ...readMigrations(),
      { version: 9998, name: 'good_half', sql: 'CREATE TABLE half_done (id int)' },
      { version: 9999, name: 'broken', sql: 'CREATE TABLE nope (' },
    ];
    await expect(runMigrations(db.sql, broken)).rejects.toThrow();
    const [row] = await db.sql<{ exists: boolean }[]>`SELECT to_regclass('half_done') IS NOT NULL AS exists`;
    expect(row?.exists).toBe(false);
    const versions = await db.sql`SELECT 1 FROM schema_migrations WHERE version >= 9998`;
    expect(versions).toHaveLength(0);
  });
});
