import { mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDirectoryLock, DirectoryInUseError, STALE_MS } from '../../../src/store/directory-lock.js';

const parent = mkdtempSync(path.join(tmpdir(), 'gw-lock-'));
const directory = path.join(parent, 'postgres');
mkdirSync(directory);
afterEach(() => rmSync(`${directory}.lock`, { recursive: true, force: true }));

describe('the embedded database directory lock', () => {
  it('is held by one owner at a time, the same process included, and free again once released', async () => {
    const lock = await acquireDirectoryLock(directory);
    await expect(acquireDirectoryLock(directory)).rejects.toThrow(DirectoryInUseError);
    await expect(acquireDirectoryLock(directory)).rejects.toThrow(/in use by another gateway process/);
    await lock.release();
    await (await acquireDirectoryLock(directory)).release();
  });

  it('takes over a lock whose owner stopped refreshing it (a crash, whatever pid comes next)', async () => {
    mkdirSync(`${directory}.lock`);
    const long = new Date(Date.now() - 2 * STALE_MS);
    utimesSync(`${directory}.lock`, long, long);
    const lock = await acquireDirectoryLock(directory);
    await expect(acquireDirectoryLock(directory)).rejects.toThrow(DirectoryInUseError);
    await lock.release();
  });
});
