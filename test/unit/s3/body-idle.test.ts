/**
 * The upload idle timer counts only the client's silence: bytes arriving start it over, and time
 * the gateway spends not reading (a paused body, bytes waiting in its buffer) is not held against
 * the client.
 */
import type http from 'node:http';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchBodyIdle } from '../../../src/s3/body-idle.js';

/** A request body as the watcher sees it: a readable stream that knows when it completed. */
function requestBody(): PassThrough & { complete: boolean } {
  return Object.assign(new PassThrough(), { complete: false });
}

const IDLE_MS = 1_000;

/** Lets the stream deliver what was written (streams emit on the next tick, which is not faked). */
function delivered(): Promise<void> {
  return new Promise((resolve) => process.nextTick(resolve));
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('watchBodyIdle', () => {
  it('reports a body that stays silent while it is read, once', () => {
    const body = requestBody();
    const onIdle = vi.fn();
    watchBodyIdle(body as unknown as http.IncomingMessage, IDLE_MS, onIdle);
    body.resume();
    vi.advanceTimersByTime(IDLE_MS - 1);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onIdle).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10 * IDLE_MS);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it('starts over with every chunk the client sends', async () => {
    const body = requestBody();
    const onIdle = vi.fn();
    watchBodyIdle(body as unknown as http.IncomingMessage, IDLE_MS, onIdle);
    body.resume();
    for (let chunk = 0; chunk < 5; chunk += 1) {
      vi.advanceTimersByTime(IDLE_MS - 100);
      body.write(Buffer.from('x'));
      await delivered();
    }
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(IDLE_MS);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it('does not count time in which the gateway is not reading (backpressure, nothing reading yet)', () => {
    const body = requestBody();
    const onIdle = vi.fn();
    watchBodyIdle(body as unknown as http.IncomingMessage, IDLE_MS, onIdle);
    body.pause();
    vi.advanceTimersByTime(5 * IDLE_MS);
    expect(onIdle).not.toHaveBeenCalled();
    body.resume();
    vi.advanceTimersByTime(2 * IDLE_MS);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it('does not count bytes that wait unread in the buffer as the client’s silence', async () => {
    const body = requestBody();
    const onIdle = vi.fn();
    watchBodyIdle(body as unknown as http.IncomingMessage, IDLE_MS, onIdle);
    // Read in paused mode, then leave a chunk in the buffer: the reader is behind, not the client.
    body.write(Buffer.from('unread'));
    await delivered();
    vi.advanceTimersByTime(5 * IDLE_MS);
    expect(body.readableLength).toBeGreaterThan(0);
    expect(onIdle).not.toHaveBeenCalled();
  });

  it('stops at the end of the body, and when stopped', () => {
    const ended = requestBody();
    const onIdle = vi.fn();
    watchBodyIdle(ended as unknown as http.IncomingMessage, IDLE_MS, onIdle);
    ended.resume();
    ended.complete = true;
    ended.end();
    vi.advanceTimersByTime(0);
    const stopped = requestBody();
    const stop = watchBodyIdle(stopped as unknown as http.IncomingMessage, IDLE_MS, onIdle);
    stopped.resume();
    stop();
    vi.advanceTimersByTime(10 * IDLE_MS);
    expect(onIdle).not.toHaveBeenCalled();
  });

  it('does not set a paused body flowing by watching it', () => {
    const body = requestBody();
    body.pause();
    watchBodyIdle(body as unknown as http.IncomingMessage, IDLE_MS, () => undefined);
    expect(body.isPaused()).toBe(true);
    expect(body.readableFlowing).toBe(false);
  });
});
