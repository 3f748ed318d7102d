import { describe, expect, it } from 'vitest';
import { Batches } from '../../../src/store/batches.js';

/** A write whose batches finish when the test says, recording what each carried. */
function controlledWrite() {
  const batches: number[][] = [];
  const finish: (() => void)[] = [];
  const write = async (items: readonly number[]): Promise<number[]> => {
    batches.push([...items]);
    await new Promise<void>((resolve) => finish.push(resolve));
    if (items.includes(-1)) throw new Error('the statement failed');
    return items.map((item) => item * 10);
  };
  return { batches, finish, write };
}

describe('batches of concurrent statements', () => {
  it('sends a lone call at once, and the calls made meanwhile together once it is over', async () => {
    const { batches, finish, write } = controlledWrite();
    const queue = new Batches(write, 3);
    const first = queue.submit(1);
    const later = [2, 3, 4, 5].map((item) => queue.submit(item));
    expect(batches).toEqual([[1]]);
    finish.shift()?.();
    expect(await first).toBe(10);
    await Promise.resolve();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    finish.shift()?.();
    await Promise.resolve();
    await Promise.resolve();
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
    finish.shift()?.();
    expect(await Promise.all(later)).toEqual([20, 30, 40, 50]);
  });

  it('fails every call of a batch whose statement failed, and goes on with the next', async () => {
    const { batches, finish, write } = controlledWrite();
    const queue = new Batches(write, 10);
    const first = queue.submit(1);
    const failing = [queue.submit(2), queue.submit(-1)];
    finish.shift()?.();
    await first;
    await Promise.resolve();
    const after = queue.submit(7);
    finish.shift()?.();
    for (const call of failing) await expect(call).rejects.toThrow('the statement failed');
    await Promise.resolve();
    expect(batches).toEqual([[1], [2, -1], [7]]);
    finish.shift()?.();
    expect(await after).toBe(70);
  });
});
