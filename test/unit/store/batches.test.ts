import { describe, expect, it, vi } from 'vitest';
import { Batches, Lane } from '../../../src/store/batches.js';

/** A write whose batches finish when the test says, recording what each carried. */
function controlledWrite(running = { now: 0, most: 0 }) {
  const batches: number[][] = [];
  const finish: (() => void)[] = [];
  const write = async (items: readonly number[]): Promise<number[]> => {
    batches.push([...items]);
    running.now += 1;
    running.most = Math.max(running.most, running.now);
    await new Promise<void>((resolve) => finish.push(resolve));
    running.now -= 1;
    if (items.includes(-1)) throw new Error('the statement failed');
    return items.map((item) => item * 10);
  };
  /** Ends the batch under way once it has started. */
  const finishNext = async () => {
    await vi.waitFor(() => expect(finish.length).toBeGreaterThan(0));
    finish.shift()?.();
  };
  return { batches, finishNext, write };
}

describe('batches of concurrent statements', () => {
  it('sends a lone call at once, and the calls made meanwhile together once it is over', async () => {
    const { batches, finishNext, write } = controlledWrite();
    const queue = new Batches(write, 3);
    const first = queue.submit(1);
    const later = [2, 3, 4, 5].map((item) => queue.submit(item));
    await vi.waitFor(() => expect(batches).toEqual([[1]]));
    await finishNext();
    expect(await first).toBe(10);
    await vi.waitFor(() => expect(batches).toEqual([[1], [2, 3, 4]]));
    await finishNext();
    await vi.waitFor(() => expect(batches).toEqual([[1], [2, 3, 4], [5]]));
    await finishNext();
    expect(await Promise.all(later)).toEqual([20, 30, 40, 50]);
  });

  it('fails every call of a batch whose statement failed, and goes on with the next', async () => {
    const { batches, finishNext, write } = controlledWrite();
    const queue = new Batches(write, 10);
    const first = queue.submit(1);
    const failing = [queue.submit(2), queue.submit(-1)];
    await finishNext();
    await first;
    await vi.waitFor(() => expect(batches).toEqual([[1], [2, -1]]));
    const after = queue.submit(7);
    await finishNext();
    for (const call of failing) await expect(call).rejects.toThrow('the statement failed');
    await vi.waitFor(() => expect(batches).toEqual([[1], [2, -1], [7]]));
    await finishNext();
    expect(await after).toBe(70);
  });

  it('runs one statement at a time of the batches that share a lane, in turn', async () => {
    const running = { now: 0, most: 0 };
    const { batches, finishNext, write } = controlledWrite(running);
    const lane = new Lane();
    const reservations = new Batches(write, 10, lane);
    const settlements = new Batches(write, 10, lane);
    const calls = [
      reservations.submit(1),
      settlements.submit(2),
      reservations.submit(3),
      settlements.submit(4),
    ];
    // Each kind's second call waits for its first batch, which waits for the lane: four batches.
    for (let batch = 0; batch < 4; batch += 1) await finishNext();
    expect(await Promise.all(calls)).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2], [3], [4]]);
    expect(running.most).toBe(1);
  });
});
