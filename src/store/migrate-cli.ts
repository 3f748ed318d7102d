import { ConfigError, loadConfig } from '../config/load.js';
import { openDatabase } from './database.js';
import { runMigrations } from './migrate.js';

/** `npm run migrate`: applies pending migrations to the configured (or local embedded) database. */
async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config);
  try {
    const applied = await runMigrations(db.sql);
    process.stdout.write(
      applied.length === 0
        ? `${db.description}: up to date\n`
        : `${db.description}: applied ${applied.join(', ')}\n`,
    );
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
});
