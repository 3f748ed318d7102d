import postgres from 'postgres';

/**
 * Decides once per run which PostgreSQL the tests use: DATABASE_URL, else 127.0.0.1:5432 when it
 * answers, else none (each test database is then an in-memory PGlite). Test files read the answer
 * from GATEWAY_TEST_POSTGRES_URL ('' = none).
 */
export default async function setup(): Promise<void> {
  const candidate = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const sql = postgres(candidate, { max: 1, connect_timeout: 2, onnotice: () => undefined });
  try {
    await sql`SELECT 1`;
    process.env.GATEWAY_TEST_POSTGRES_URL = candidate;
  } catch {
    process.env.GATEWAY_TEST_POSTGRES_URL = '';
  } finally {
    await sql.end({ timeout: 1 });
  }
}
