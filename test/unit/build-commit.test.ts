import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildCommit, checkoutCommit } from '../../src/build-commit.js';

const MAIN = 'a'.repeat(40);
const FEATURE = 'b'.repeat(40);
const TAG_OBJECT = 'c'.repeat(40);

let root: string;

function write(relative: string, text: string): void {
  const file = path.join(root, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'gw-checkout-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the commit of a checkout, read without running git', () => {
  it('follows HEAD to a loose branch ref', () => {
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write('.git/refs/heads/main', `${MAIN}\n`);
    expect(checkoutCommit(root)).toBe(MAIN);
  });

  it('finds a branch that only packed-refs holds, past comments and peeled tags', () => {
    write('.git/HEAD', 'ref: refs/heads/feature\n');
    write(
      '.git/packed-refs',
      [
        '# pack-refs with: peeled fully-peeled sorted',
        `${MAIN} refs/heads/main`,
        `${TAG_OBJECT} refs/tags/v1`,
        `^${MAIN}`,
        `${FEATURE} refs/heads/feature`,
        '',
      ].join('\n'),
    );
    expect(checkoutCommit(root)).toBe(FEATURE);
  });

  it('prefers a loose ref to a stale packed one (git writes loose refs after packing)', () => {
    write('.git/HEAD', 'ref: refs/heads/main\n');
    write('.git/packed-refs', `${FEATURE} refs/heads/main\n`);
    write('.git/refs/heads/main', `${MAIN}\n`);
    expect(checkoutCommit(root)).toBe(MAIN);
  });

  it('reads a detached HEAD as it is', () => {
    write('.git/HEAD', `${FEATURE}\n`);
    expect(checkoutCommit(root)).toBe(FEATURE);
  });

  it('follows a worktree’s .git file to its HEAD and the shared refs', () => {
    const checkout = path.join(root, 'worktree');
    write('worktree/.git', 'gitdir: ../repo/.git/worktrees/worktree\n');
    write('repo/.git/worktrees/worktree/HEAD', 'ref: refs/heads/feature\n');
    write('repo/.git/worktrees/worktree/commondir', '../..\n');
    write('repo/.git/refs/heads/feature', `${FEATURE}\n`);
    expect(checkoutCommit(checkout)).toBe(FEATURE);
  });

  it('is null outside a checkout, on an unborn branch and on garbage', () => {
    expect(checkoutCommit(root)).toBeNull();
    write('.git/HEAD', 'ref: refs/heads/main\n');
    expect(checkoutCommit(root)).toBeNull();
    write('.git/HEAD', 'not a commit\n');
    expect(checkoutCommit(root)).toBeNull();
  });
});

describe('the build commit /v1/version reports', () => {
  it('is GATEWAY_BUILD_COMMIT when set, else the checkout’s, else unknown', () => {
    write('.git/HEAD', `${MAIN}\n`);
    expect(buildCommit('1234abc', root)).toBe('1234abc');
    expect(buildCommit(undefined, root)).toBe(MAIN);
    expect(buildCommit('  ', root)).toBe(MAIN);
    expect(buildCommit(undefined, path.join(root, 'elsewhere'))).toBe('unknown');
  });
});
