import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError, EXIT_CODES } from '../../../src/cli/errors.js';
import { ProfileStore } from '../../../src/cli/profile-store.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 's3gw-profiles-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** The error `action` throws, as main.ts reports it: its message and exit code. */
async function failure(action: () => unknown): Promise<{ message: string; exitCode: number }> {
  try {
    await action();
  } catch (error) {
    if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
    throw error;
  }
  throw new Error('expected a failure');
}

const PROFILE = { url: 'http://127.0.0.1:9001' };

describe('the profile store', () => {
  it('writes a profile readable by its owner only, in directories only they may enter', () => {
    const store = new ProfileStore(root);
    store.write('work', PROFILE);
    expect(store.read('work')).toEqual(PROFILE);
    expect(statSync(store.fileOf('work')).mode & 0o777).toBe(0o600);
    expect(statSync(store.directory).mode & 0o777).toBe(0o700);
    expect(readdirSync(store.directory)).toEqual(['work.json']);
    expect(store.read('never-used')).toBeNull();
  });

  it('says a profile it cannot read is unreadable, with exit code 5', async () => {
    const store = new ProfileStore(root);
    mkdirSync(store.fileOf('default'), { recursive: true });
    expect(await failure(() => store.read('default'))).toEqual({
      message: `cannot read the profile ${store.fileOf('default')}: it is a directory (EISDIR)`,
      exitCode: EXIT_CODES.local,
    });
  });

  it('says a profile it cannot write is unwritable, with exit code 5, leaving no temporary file', async () => {
    const store = new ProfileStore(root);
    mkdirSync(store.fileOf('default'), { recursive: true });
    writeFileSync(path.join(store.fileOf('default'), 'in the way'), '');
    const { message, exitCode } = await failure(() => store.write('default', PROFILE));
    expect(exitCode).toBe(EXIT_CODES.local);
    expect(message).toMatch(
      new RegExp(`^cannot write the profile ${store.fileOf('default')}: .+ \\(E[A-Z]+\\)$`),
    );
    expect(readdirSync(store.directory)).toEqual(['default.json']);
  });

  it('refuses a profile that is not JSON, or not one it wrote, saying what to do', async () => {
    const store = new ProfileStore(root);
    store.write('default', PROFILE);
    writeFileSync(store.fileOf('default'), '{"url": ');
    expect(await failure(() => store.read('default'))).toEqual({
      message: `the profile ${store.fileOf('default')} is not valid JSON; delete it and log in again`,
      exitCode: EXIT_CODES.local,
    });
    for (const contents of [
      'null',
      '[]',
      '{"url": 5}',
      '{"url": "http://x", "session": {"accessToken": 1}}',
    ]) {
      writeFileSync(store.fileOf('default'), contents);
      expect(await failure(() => store.read('default')), contents).toEqual({
        message: `the profile ${store.fileOf('default')} is not one s3gw wrote; delete it and log in again`,
        exitCode: EXIT_CODES.local,
      });
    }
  });

  it('says when another command keeps the profile locked, with exit code 5', async () => {
    const holder = new ProfileStore(root);
    const waiter = new ProfileStore(root, 1);
    holder.write('default', PROFILE);
    const outcome = await holder.exclusive('default', () =>
      failure(() => waiter.exclusive('default', async () => 'ran')),
    );
    expect(outcome).toEqual({
      message:
        `the profile "default" stays locked by another s3gw command (${holder.fileOf('default')}.lock); ` +
        'try again, or remove that lock directory if no s3gw is running',
      exitCode: EXIT_CODES.local,
    });
    expect(await waiter.exclusive('default', async () => 'ran once free')).toBe('ran once free');
  });
});
