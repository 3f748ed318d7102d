import fs from 'node:fs';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LineWriter } from '../../../src/observability/line-writer.js';

let directory: string;
let file: string;
let fd: number;

beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'line-writer-'));
  file = path.join(directory, 'log');
  fd = openSync(file, 'w');
  // Only the linger's timer is faked, so turns pass as they do and no assertion waits on the clock.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  closeSync(fd);
  rmSync(directory, { recursive: true, force: true });
});

const written = (): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');

describe('LineWriter', () => {
  it('writes the lines of several turns together, in order, once they have waited a moment', async () => {
    const writes = vi.spyOn(fs, 'writeSync');
    const writer = new LineWriter({ fd, maxBufferedBytes: 1 << 20 });
    for (const n of [1, 2, 3]) {
      writer.write(`{"n":${n}}\n`);
      await nextTurn();
    }
    expect(written()).toEqual([]);
    vi.advanceTimersByTime(10);
    expect(written()).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    expect(writes).toHaveBeenCalledTimes(1);
  });

  it('writes as soon as a whole atomic write has gathered, the rest waiting to share its write', async () => {
    const writes = vi.spyOn(fs, 'writeSync');
    const writer = new LineWriter({ fd, maxBufferedBytes: 1 << 20 });
    const line = (n: number) => `{"n":${n},"pad":"${'x'.repeat(980)}"}\n`;
    for (let n = 0; n < 5; n += 1) writer.write(line(n));
    await nextTurn();
    // 4,990 bytes waiting: the four lines that fit in 4,096 bytes go at once, in one write.
    expect(written().map((text) => (JSON.parse(text) as { n: number }).n)).toEqual([0, 1, 2, 3]);
    writer.write(line(5));
    await nextTurn();
    vi.advanceTimersByTime(10);
    expect(written().map((text) => (JSON.parse(text) as { n: number }).n)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(writes).toHaveBeenCalledTimes(2);
  });

  it('writes the lines still waiting when flushed (shutdown)', () => {
    const writer = new LineWriter({ fd, maxBufferedBytes: 1 << 20 });
    writer.write('{"last":true}\n');
    let done = false;
    writer.flush(() => (done = true));
    expect(done).toBe(true);
    expect(written()).toEqual(['{"last":true}']);
  });
});
