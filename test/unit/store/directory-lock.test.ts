import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDirectoryLock, DirectoryInUseError } from '../../../src/store/directory-lock.js';

const directory = mkdtempSync(path.join(tmpdir(), 'gw-lock-'));
const lockFile = path.join(directory, 'postgres.lock');
afterEach(() => rmSync(lockFile, { force: true }));

describe('the embedded database directory lock', () => {
  it('is held by one owner at a time and free again once released', () => {
    const lock = acquireDirectoryLock(lockFile);
    expect(readFileSync(lockFile, 'utf8')).toBe(String(process.pid));
    expect(() => acquireDirectoryLock(lockFile)).toThrow(DirectoryInUseError);
    expect(() => acquireDirectoryLock(lockFile)).toThrow(`(pid ${process.pid})`);
    lock.release();
    expect(existsSync(lockFile)).toBe(false);
    acquireDirectoryLock(lockFile).release();
  });

  it('takes over a lock left by a process that is gone', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid as number;
    writeFileSync(lockFile, String(gone));
    const lock = acquireDirectoryLock(lockFile);
    expect(readFileSync(lockFile, 'utf8')).toBe(String(process.pid));
    lock.release();
  });

  it('takes over an unreadable lock, and never removes a lock it does not own', () => {
    writeFileSync(lockFile, 'garbage');
    const lock = acquireDirectoryLock(lockFile);
    writeFileSync(lockFile, '1');
    lock.release();
    expect(readFileSync(lockFile, 'utf8')).toBe('1');
  });
});
