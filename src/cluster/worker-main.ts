/** The entry point of a storage worker process (forked by the main process, see supervisor.ts). */
import { ListenError } from '../server/listen.js';
import { runStorageWorker } from './worker.js';

runStorageWorker().catch((error: unknown) => {
  // A port that cannot be bound is an operator's setting, not a defect: the main process reports
  // the worker's message in its one line (start.ts), and a stack trace here would only bury it.
  if (!(error instanceof ListenError)) {
    process.stderr.write(
      `storage worker failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
