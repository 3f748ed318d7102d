import { describe, expect, it } from 'vitest';
import { LastUsedRecorder } from '../../../src/store/last-used.js';

describe('LastUsedRecorder', () => {
  it('writes a key at once, then at most once per interval', () => {
    const writes: [string[], number][] = [];
    const recorder = new LastUsedRecorder(
      async (ids, at) => {
        writes.push([ids, at.getTime()]);
      },
      { intervalMs: 60_000 },
    );
    recorder.used('A', 1_000);
    recorder.used('A', 30_000);
    recorder.used('B', 30_000);
    recorder.used('A', 61_000);
    expect(writes).toEqual([
      [['A'], 1_000],
      [['B'], 30_000],
      [['A'], 61_000],
    ]);
  });

  it('reports a failed write instead of throwing', async () => {
    const errors: unknown[] = [];
    let reported: () => void = () => undefined;
    const failed = new Promise<void>((resolve) => (reported = resolve));
    const recorder = new LastUsedRecorder(async () => Promise.reject(new Error('db down')), {
      onError: (error) => {
        errors.push(error);
        reported();
      },
    });
    expect(() => recorder.used('A')).not.toThrow();
    await failed;
    expect(errors).toEqual([new Error('db down')]);
  });
});
