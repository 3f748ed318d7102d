/**
 * One process at a time may open the embedded database: PGlite has no lock of its own, and two
 * processes writing one data directory (a second `npm start` in the same folder) corrupt it.
 *
 * proper-lockfile takes the lock atomically (mkdir) and keeps refreshing its mtime while the owner
 * runs; a lock left by a process that is gone goes stale after {@link STALE_MS} and is taken over.
 * Staleness by time, not by pid, survives pid reuse (a restarted container's gateway is pid 1 again).
 */
import lockfile from 'proper-lockfile';

export const STALE_MS = 10_000;

export interface DirectoryLock {
  release(): Promise<void>;
}

export class DirectoryInUseError extends Error {
  constructor(readonly directory: string) {
    super(
      `${directory} is in use by another gateway process (lock ${directory}.lock, which frees itself ` +
        `${STALE_MS / 1000} s after its process stops); stop it, or use another data directory`,
    );
    this.name = 'DirectoryInUseError';
  }
}

export async function acquireDirectoryLock(directory: string): Promise<DirectoryLock> {
  try {
    const release = await lockfile.lock(directory, {
      lockfilePath: `${directory}.lock`,
      realpath: false,
      stale: STALE_MS,
      update: STALE_MS / 4,
      retries: 0,
    });
    return { release };
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOCKED') throw new DirectoryInUseError(directory);
    throw error;
  }
}
