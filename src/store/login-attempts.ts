import { createHash } from 'node:crypto';
import { inTransaction, type Sql } from './database.js';

/** The first number of the two-number advisory locks that serialise attempts on one key. */
const LOGIN_ATTEMPT_LOCK_CLASS = 727_002;

export type LoginAttemptResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface LoginAttemptOptions {
  /** At most this many attempts per key in any window. */
  limit: number;
  windowMs?: number;
  /** The time of an attempt; by default the database's clock, which every instance shares. */
  now?: () => Date;
  /** Every this many attempts made through this instance, expired rows of any key are deleted too. */
  sweepEvery?: number;
  /** At most this many expired rows are deleted by one sweep. */
  sweepBatch?: number;
  /** A failed sweep does not fail the login (the next sweep tries again); it is reported here. */
  onSweepError?: (error: unknown) => void;
}

/** The advisory lock of a key: a 32-bit number from its hash (a collision only serialises two keys). */
function lockOf(key: string): number {
  return createHash('sha256').update(key).digest().readInt32BE(0);
}

/**
 * Sliding-window limiter for login attempts, kept in the database so that every gateway instance on
 * it counts the same attempts: at most `limit` attempts per key in any window (60 seconds).
 */
export class LoginAttemptStore {
  readonly #sql: Sql;
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: (() => Date) | null;
  readonly #sweepEvery: number;
  readonly #sweepBatch: number;
  readonly #onSweepError: (error: unknown) => void;
  #sinceSweep = 0;

  constructor(sql: Sql, options: LoginAttemptOptions) {
    this.#sql = sql;
    this.#limit = options.limit;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#now = options.now ?? null;
    this.#sweepEvery = options.sweepEvery ?? 100;
    this.#sweepBatch = options.sweepBatch ?? 1000;
    this.#onSweepError = options.onSweepError ?? (() => undefined);
  }

  /**
   * Records an attempt for every key when all of them are under the limit. Otherwise records nothing
   * and returns the seconds (at least 1) until the busiest key frees a slot.
   *
   * Attempts on a key are serialised by an advisory lock held to the end of the transaction, so
   * concurrent attempts through any number of instances never record more than the limit. The locks
   * are taken in ascending order, so two attempts sharing keys cannot deadlock.
   */
  async attempt(keys: string[]): Promise<LoginAttemptResult> {
    const unique = [...new Set(keys)];
    const locks = [...new Set(unique.map(lockOf))].sort((a, b) => a - b);
    const result = (await this.#sql.begin(async (transaction) => {
      const tx = inTransaction(transaction);
      for (const lock of locks) await tx`SELECT pg_advisory_xact_lock(${LOGIN_ATTEMPT_LOCK_CLASS}, ${lock})`;
      const now = this.#now?.() ?? (await this.#databaseNow(tx));
      const since = new Date(now.getTime() - this.#windowMs);
      // The rows whose expiry frees a slot: per key at its limit, the `limit`-th most recent attempt.
      // The expired rows of these keys go in the same statement (its snapshot still sees them, hence
      // the `since` filter below as well).
      const full = await tx<{ attempted_at: Date }[]>`
        WITH expired AS (
          DELETE FROM login_attempts WHERE key = ANY(${unique}) AND attempted_at <= ${since}
        )
        SELECT attempted_at FROM (
          SELECT attempted_at, row_number() OVER (PARTITION BY key ORDER BY attempted_at DESC) AS rank
          FROM login_attempts
          WHERE key = ANY(${unique}) AND attempted_at > ${since}
        ) ranked
        WHERE rank = ${this.#limit}`;
      if (full.length > 0) {
        const waitMs = Math.max(
          ...full.map((row) => row.attempted_at.getTime() + this.#windowMs - now.getTime()),
        );
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
      }
      await tx`INSERT INTO login_attempts (key, attempted_at) SELECT unnest(${unique}::text[]), ${now}`;
      return { allowed: true };
    })) as LoginAttemptResult;
    await this.#maybeSweep();
    return result;
  }

  async #databaseNow(tx: Sql): Promise<Date> {
    const [row] = await tx<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
    return (row as { now: Date }).now;
  }

  /**
   * Deletes a bounded batch of expired rows of any key (keys not attempted again keep theirs until
   * then). Rows another transaction holds are skipped rather than waited for.
   */
  async #maybeSweep(): Promise<void> {
    this.#sinceSweep += 1;
    if (this.#sinceSweep < this.#sweepEvery) return;
    this.#sinceSweep = 0;
    try {
      const now = this.#now?.() ?? (await this.#databaseNow(this.#sql));
      const since = new Date(now.getTime() - this.#windowMs);
      await this.#sql`
        DELETE FROM login_attempts WHERE id IN (
          SELECT id FROM login_attempts WHERE attempted_at <= ${since}
          ORDER BY attempted_at LIMIT ${this.#sweepBatch}
          FOR UPDATE SKIP LOCKED
        )`;
    } catch (error) {
      this.#onSweepError(error);
    }
  }
}
