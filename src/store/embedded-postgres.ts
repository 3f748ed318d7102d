import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { acquireDirectoryLock } from './directory-lock.js';

export interface EmbeddedPostgres {
  /** A postgres:// URL on loopback that postgres.js can use. */
  readonly url: string;
  readonly dataDir: string | null;
  stop(): Promise<void>;
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly) served over the wire protocol on a loopback port, so the
 * same postgres.js code runs against it as against a real server. dataDir null keeps it in memory.
 */
export async function startEmbeddedPostgres(
  dataDir: string | null,
  options: { maxConnections?: number } = {},
): Promise<EmbeddedPostgres> {
  if (dataDir !== null) mkdirSync(dataDir, { recursive: true });
  const lock = dataDir === null ? null : await acquireDirectoryLock(dataDir);
  let db: PGlite | null = null;
  try {
    db = await PGlite.create(dataDir ?? undefined);
    const server = new PGLiteSocketServer({
      db,
      host: '127.0.0.1',
      port: 0,
      maxConnections: options.maxConnections ?? 4,
    });
    await server.start();
    const address = server.getServerConn();
    const opened = db;
    return {
      url: `postgres://postgres@${address}/postgres`,
      dataDir,
      stop: async () => {
        try {
          await server.stop();
          await opened.close();
        } finally {
          await lock?.release();
        }
      },
    };
  } catch (error) {
    await db?.close().catch(() => undefined);
    await lock?.release();
    throw error;
  }
}
