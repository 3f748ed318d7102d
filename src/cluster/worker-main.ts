/** The entry point of a storage worker process (forked by the main process, see supervisor.ts). */
import { runStorageWorker } from './worker.js';

runStorageWorker().catch((error: unknown) => {
  process.stderr.write(
    `storage worker failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
