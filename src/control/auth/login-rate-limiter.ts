const WINDOW_MS = 60_000;
/** Bounds memory under a spray of distinct addresses or e-mails: the stalest keys are dropped first. */
const MAX_KEYS = 100_000;

/**
 * Sliding-window limiter for login attempts: at most `limit` attempts per key in any 60 seconds.
 * In memory, so each gateway instance counts on its own.
 */
export class SlidingWindowLimiter {
  readonly #limit: number;
  readonly #now: () => number;
  /** Attempt times per key, oldest first; Map order is least recently attempted first. */
  readonly #attempts = new Map<string, number[]>();

  constructor(limit: number, now: () => number = Date.now) {
    this.#limit = limit;
    this.#now = now;
  }

  /**
   * Records an attempt for every key when all of them are under the limit. Otherwise records nothing
   * and returns the seconds until the busiest key frees a slot.
   */
  attempt(keys: string[]): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const now = this.#now();
    let waitMs = 0;
    for (const key of keys) {
      const recent = this.#recent(key, now);
      if (recent.length >= this.#limit) {
        waitMs = Math.max(waitMs, (recent[recent.length - this.#limit] as number) + WINDOW_MS - now);
      }
    }
    if (waitMs > 0) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    for (const key of keys) {
      const recent = this.#recent(key, now);
      recent.push(now);
      this.#attempts.delete(key);
      this.#attempts.set(key, recent);
    }
    this.#evict();
    return { allowed: true };
  }

  #recent(key: string, now: number): number[] {
    const times = this.#attempts.get(key) ?? [];
    const firstInWindow = times.findIndex((time) => time > now - WINDOW_MS);
    return firstInWindow === -1 ? [] : times.slice(firstInWindow);
  }

  #evict(): void {
    for (const key of this.#attempts.keys()) {
      if (this.#attempts.size <= MAX_KEYS) return;
      this.#attempts.delete(key);
    }
  }
}
