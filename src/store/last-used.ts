/**
 * Records when each credential was last used without a database write per request: a key is
 * written at most once per interval (about a minute), the first use at once.
 */
export type TouchLastUsed = (accessKeyIds: string[], at: Date) => Promise<void>;

export class LastUsedRecorder {
  readonly #touch: TouchLastUsed;
  readonly #intervalMs: number;
  readonly #onError: (error: unknown) => void;
  /** Access key id → when it was last written. */
  readonly #written = new Map<string, number>();

  constructor(
    touch: TouchLastUsed,
    options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
  ) {
    this.#touch = touch;
    this.#intervalMs = options.intervalMs ?? 60_000;
    this.#onError = options.onError ?? (() => undefined);
  }

  used(accessKeyId: string, now = Date.now()): void {
    const last = this.#written.get(accessKeyId);
    if (last !== undefined && now - last < this.#intervalMs) return;
    this.#written.set(accessKeyId, now);
    if (this.#written.size > 10_000) this.#forgetOlderThan(now - this.#intervalMs);
    this.#touch([accessKeyId], new Date(now)).catch(this.#onError);
  }

  #forgetOlderThan(cutoff: number): void {
    for (const [accessKeyId, at] of this.#written) if (at < cutoff) this.#written.delete(accessKeyId);
  }
}
