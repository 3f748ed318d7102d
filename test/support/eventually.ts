/**
 * Waiting in tests without guessing how long something takes. Await an event when the code under
 * test offers one; poll with {@link eventually} only for a state that announces itself nowhere (a
 * listener that closed, a row another process wrote, a log line written when a response closes).
 * The bound is not a performance expectation: it only ends a wait that would otherwise hang the
 * test, so a busy machine makes a wait longer but never makes it fail.
 */
import { performance } from 'node:perf_hooks';

/** Long enough that only a real hang reaches it, short enough to fail before the test's own timeout. */
export const EVENTUALLY_TIMEOUT_MS = 15_000;

export interface EventuallyOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Calls `check` until it returns a truthy value, which it resolves with; rejects naming `what` when
 * `timeoutMs` passes first (a function is asked then, to describe the state the wait ended in). An
 * exception from `check` ends the wait at once: it is a failed assertion, not a condition still to come.
 */
export async function eventually<T>(
  what: string | (() => string),
  check: () => T | Promise<T>,
  { timeoutMs = EVENTUALLY_TIMEOUT_MS, intervalMs = 20 }: EventuallyOptions = {},
): Promise<NonNullable<T>> {
  // The process's monotonic clock: a wall-clock step (NTP) cannot end or stretch the wait.
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (performance.now() > deadline) {
      throw new Error(`not within ${timeoutMs} ms: ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
