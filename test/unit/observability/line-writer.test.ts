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

  it('writes a burst once 64 KiB have gathered: whole lines, in atomic writes back to back', async () => {
    const writes = vi.spyOn(fs, 'writeSync');
    const writer = new LineWriter({ fd, maxBufferedBytes: 1 << 20 });
    const line = (n: number) => `{"n":${n},"pad":"${'x'.repeat(1006)}"}\n`;
    // 1,024 bytes each (n of two digits): 63 lines wait for the linger, the 64th makes a burst.
    for (let n = 10; n < 73; n += 1) writer.write(line(n));
    await nextTurn();
    expect(written()).toEqual([]);
    writer.write(line(73));
    await nextTurn();
    expect(written().map((text) => (JSON.parse(text) as { n: number }).n)).toEqual(
      Array.from({ length: 64 }, (_, index) => index + 10),
    );
    // Four lines per write of at most PIPE_BUF (4,096) bytes.
    expect(writes).toHaveBeenCalledTimes(16);
    for (const [, chunk] of writes.mock.calls) {
      const bytes = chunk as unknown as Buffer;
      expect(bytes.length).toBeLessThanOrEqual(4096);
      expect(bytes.at(-1)).toBe(10);
    }
    // Nothing is left for the linger to write.
    vi.advanceTimersByTime(10);
    expect(writes).toHaveBeenCalledTimes(16);
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
