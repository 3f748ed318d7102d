import { describe, expect, it, vi } from 'vitest';
import { Batches, Failed, Lanes } from '../../../src/store/batches.js';

/** A write whose batches finish when the test says, recording what each carried. */
function controlledWrite() {
  const batches: number[][] = [];
  const finish: (() => void)[] = [];
  const running = { now: 0, most: 0 };
  const write = async (items: readonly number[]): Promise<number[]> => {
    batches.push([...items]);
    running.now += 1;
    running.most = Math.max(running.most, running.now);
    await new Promise<void>((resolve) => finish.push(resolve));
    running.now -= 1;
    if (items.includes(-1)) throw new Error('the statement failed');
    return items.map((item) => item * 10);
  };
  /** Ends the oldest batch under way once one has started. */
  const finishNext = async () => {
    await vi.waitFor(() => expect(finish.length).toBeGreaterThan(0));
    finish.shift()?.();
  };
  return { batches, finishNext, running, write };
}

describe('batches of concurrent statements', () => {
  it('sends a lone call at once, and the calls made meanwhile together once it is over', async () => {
    const { batches, finishNext, write } = controlledWrite();
    const queue = new Batches(write, 3);
    const first = queue.submit('a', 1);
    await vi.waitFor(() => expect(batches).toEqual([[1]]));
    const later = [2, 3, 4, 5].map((item) => queue.submit('a', item));
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
    const first = queue.submit('a', 1);
    await vi.waitFor(() => expect(batches).toEqual([[1]]));
    const failing = [queue.submit('a', 2), queue.submit('a', -1)].map((call) =>
      call.then(
        () => 'answered',
        (error: unknown) => (error as Error).message,
      ),
    );
    await finishNext();
    await first;
    await vi.waitFor(() => expect(batches).toEqual([[1], [2, -1]]));
    const after = queue.submit('a', 7);
    await finishNext();
    expect(await Promise.all(failing)).toEqual(['the statement failed', 'the statement failed']);
    await vi.waitFor(() => expect(batches).toEqual([[1], [2, -1], [7]]));
    await finishNext();
    expect(await after).toBe(70);
  });

  it('fails only the calls whose part of the batch failed', async () => {
    const queue = new Batches<number, number>(
      (items) =>
        Promise.resolve(items.map((item) => (item < 0 ? new Failed(new Error(`no ${item}`)) : item))),
      10,
    );
    const calls = [queue.submit('a', 1), queue.submit('a', -2), queue.submit('a', 3)];
    expect(await calls[0]).toBe(1);
    await expect(calls[1]).rejects.toThrow('no -2');
    expect(await calls[2]).toBe(3);
  });

  it('runs one statement at a time per key of the batches that share lanes, and keys apart', async () => {
    const { batches, finishNext, running, write } = controlledWrite();
    const lanes = new Lanes();
    const reservations = new Batches(write, 10, lanes);
    const settlements = new Batches(write, 10, lanes);
    const calls = [reservations.submit('a', 1)];
    await vi.waitFor(() => expect(batches).toEqual([[1]]));
    calls.push(settlements.submit('a', 2), reservations.submit('a', 3));
    // Another key does not wait for the lane of the first.
    const other = reservations.submit('b', 9);
    await vi.waitFor(() => expect(batches).toEqual([[1], [9]]));
    expect(running.most).toBe(2);
    await finishNext();
    await finishNext();
    expect(await other).toBe(90);
    // The first key's second statement waited for its first; the third for the second.
    await vi.waitFor(() => expect(batches).toEqual([[1], [9], [2]]));
    await finishNext();
    await vi.waitFor(() => expect(batches).toEqual([[1], [9], [2], [3]]));
    await finishNext();
    expect(await Promise.all(calls)).toEqual([10, 20, 30]);
    expect(lanes.size).toBe(0);
  });
  it('fails a batch whose write gives no result for each call, and serves the key after it', async () => {
    let broken = true;
    const queue = new Batches<number, number>(
      (items) => Promise.resolve(broken ? items.slice(1) : [...items]),
      10,
    );
    await expect(queue.submit('a', 1)).rejects.toThrow('gave no result for each');
    broken = false;
    expect(await queue.submit('a', 2)).toBe(2);
  });
});
