import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { KeyTurns } from '../../../../src/s3/limits/key-turns.js';

const far = () => performance.now() + 60_000;

/** Asks for a turn at 'k', and puts `name` in `order` when it comes. */
function noted(turns: KeyTurns, order: string[], name: string) {
  return turns.take('b', 'k', far()).then((end) => {
    order.push(name);
    return end;
  });
}

describe('KeyTurns', () => {
  it('gives the turns at a key in the order they were asked for, other keys at once', async () => {
    const turns = new KeyTurns();
    const order: string[] = [];
    const first = await turns.take('b', 'k', far());
    const second = noted(turns, order, 'second');
    const third = noted(turns, order, 'third');
    const other = await turns.take('b', 'other', far());
    expect(other).not.toBeNull();
    expect(order).toEqual([]);
    first?.();
    (await second)?.();
    (await third)?.();
    other?.();
    expect(order).toEqual(['second', 'third']);
    expect(turns.size).toBe(0);
  });

  it('gives up a turn whose deadline passed without holding up the turns after it', async () => {
    const turns = new KeyTurns();
    const holder = await turns.take('b', 'k', far());
    expect(await turns.take('b', 'k', performance.now())).toBeNull();
    const next = turns.take('b', 'k', far());
    holder?.();
    const end = await next;
    expect(end).not.toBeNull();
    end?.();
    end?.();
    expect(turns.size).toBe(0);
  });

  it("gives a free key's turn at once, and none while the key is taken", async () => {
    const turns = new KeyTurns();
    const free = turns.takeFree('b', 'k');
    expect(free).not.toBeNull();
    expect(turns.takeFree('b', 'k')).toBeNull();
    const waiting = turns.take('b', 'k', far());
    free?.();
    const next = await waiting;
    expect(next).not.toBeNull();
    next?.();
    expect(turns.size).toBe(0);
    expect(turns.takeFree('b', 'k')).not.toBeNull();
  });

  it("lines up the turns asked for while a free key's turn is held, in order", async () => {
    const turns = new KeyTurns();
    const order: string[] = [];
    const free = turns.takeFree('b', 'k');
    const second = noted(turns, order, 'second');
    const third = noted(turns, order, 'third');
    await Promise.resolve();
    expect(order).toEqual([]);
    free?.();
    free?.();
    const secondEnd = await second;
    expect(order).toEqual(['second']);
    secondEnd?.();
    (await third)?.();
    expect(order).toEqual(['second', 'third']);
    expect(turns.size).toBe(0);
  });

  it('keeps a name in one space apart from the same name in another', async () => {
    const turns = new KeyTurns();
    const inOne = turns.takeFree('one', 'k');
    expect(turns.takeFree('two', 'k')).not.toBeNull();
    expect(turns.takeFree('one', 'k')).toBeNull();
    expect(turns.size).toBe(2);
    const waiting = turns.take('one', 'k', far());
    inOne?.();
    (await waiting)?.();
    expect(turns.size).toBe(1);
  });
});
