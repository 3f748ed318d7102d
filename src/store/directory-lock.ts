/**
 * One process at a time may open the embedded database: PGlite has no lock of its own, and two
 * processes writing one data directory (a second `npm start` in the same folder) corrupt it. The
 * lock is a file holding the owner's pid, created exclusively; a lock whose process is gone (a
 * crash) is taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

export interface DirectoryLock {
  release(): void;
}

export class DirectoryInUseError extends Error {
  constructor(
    readonly lockFile: string,
    readonly ownerPid: number,
  ) {
    super(
      `${lockFile} is held by another gateway process (pid ${ownerPid}); stop it, or use another data directory`,
    );
    this.name = 'DirectoryInUseError';
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ownerOf(lockFile: string): number | null {
  try {
    const pid = Number(readFileSync(lockFile, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

export function acquireDirectoryLock(lockFile: string): DirectoryLock {
  const me = String(process.pid);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    let descriptor: number;
    try {
      descriptor = openSync(lockFile, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = ownerOf(lockFile);
      if (owner !== null && isRunning(owner)) throw new DirectoryInUseError(lockFile, owner);
      // Left behind by a process that is gone: take it over.
      unlinkSync(lockFile);
      continue;
    }
    writeSync(descriptor, me);
    closeSync(descriptor);
    return {
      release: () => {
        if (String(ownerOf(lockFile)) === me) unlinkSync(lockFile);
      },
    };
  }
  throw new Error(`could not take ${lockFile}: it keeps reappearing`);
}
