/**
 * Everything the benchmark must undo (child processes, temporary folders, databases, the Ceph
 * cluster), run newest first when the run ends, fails, or is interrupted (SIGINT, SIGTERM).
 * Sections also undo their own things in `finally`; `onCleanup` returns a function that does it
 * once and forgets it, so nothing runs twice.
 */
type Cleanup = () => unknown;

const pending = new Set<{ run: Cleanup }>();

/** Registers `run`; the returned function runs it now (once) and unregisters it. */
export function onCleanup(run: Cleanup): () => Promise<void> {
  const entry = { run };
  pending.add(entry);
  return async () => {
    if (!pending.delete(entry)) return;
    await run();
  };
}

/** Runs every registered cleanup, newest first; a failing one is reported and the rest still run. */
export async function cleanUpAll(): Promise<void> {
  for (const entry of [...pending].reverse()) {
    pending.delete(entry);
    try {
      await entry.run();
    } catch (error) {
      console.error(`cleanup failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/**
 * On SIGINT/SIGTERM: clean up, then exit 130 (a second signal exits at once). On an error nothing
 * caught: report it, clean up, exit 2.
 */
export function cleanUpOnInterruptOrCrash(): void {
  const crash = (error: unknown) => {
    console.error(
      `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    void cleanUpAll().finally(() => process.exit(2));
  };
  process.once('uncaughtException', crash);
  process.once('unhandledRejection', crash);
  let signalled = false;
  const handler = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(130);
    signalled = true;
    console.error(`\n${signal}: stopping the benchmark's processes and cleaning up…`);
    void cleanUpAll().finally(() => process.exit(130));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/**
 * Runs a benchmark command's `main` and exits with its code, or with 2 when it throws (its error
 * reported), cleaning up first either way.
 */
export function runCommand(main: () => Promise<number>): void {
  main()
    .catch((error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      return 2;
    })
    .then(async (code) => {
      await cleanUpAll();
      process.exit(code);
    })
    .catch(() => process.exit(2));
}
