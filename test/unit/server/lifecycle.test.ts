import { afterEach, describe, expect, it, vi } from 'vitest';
import { drainDelay, Lifecycle } from '../../../src/server/lifecycle.js';

describe("shutdown's drain", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits exactly the drain delay, by the timers, and not a millisecond less', async () => {
    vi.useFakeTimers();
    let ended = false;
    void drainDelay(3_000).then(() => (ended = true));
    await vi.advanceTimersByTimeAsync(2_999);
    expect(ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(ended).toBe(true);
  });

  it('ends at once without a drain delay', async () => {
    vi.useFakeTimers();
    let ended = false;
    void drainDelay(0).then(() => (ended = true));
    // No timer to advance: a turn of the microtask queue is enough.
    await Promise.resolve();
    expect(ended).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reports draining from the start of shutdown', () => {
    const lifecycle = new Lifecycle();
    expect(lifecycle.draining).toBe(false);
    lifecycle.startDraining();
    expect(lifecycle.draining).toBe(true);
  });
});
