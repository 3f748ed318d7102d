/**
 * The processes serving the storage endpoint, on every gateway instance sharing the database: each
 * registers itself with a heartbeat, so that each can take its share of a rate limit (the limit
 * divided by the live processes) without a query per request, and so that the reservations of one
 * that stopped without settling them are released by the others.
 *
 * Times are the database's (now()), so clocks that differ between hosts do not matter.
 */
import { newId } from '../security/ids.js';
import type { Sql } from './database.js';
import { StorageReservations } from './storage-reservations.js';

/** How often a process beats, and re-counts the live ones. */
export const HEARTBEAT_MS = 2_000;
/** Until its first beat succeeds, a process tries again this often. */
const FIRST_BEAT_RETRY_MS = 250;
/** A process counts as live while its last beat is this recent: three missed beats and it is out. */
const LIVE_WITHIN_BEATS = 3;
/**
 * A process silent this long is forgotten and its reservations released: long enough that a
 * process merely paused (a long garbage collection, a stalled disk) keeps its uploads' room.
 */
export const FORGOTTEN_AFTER_MS = 15 * HEARTBEAT_MS;

export interface InstanceRegistryOptions {
  heartbeatMs?: number;
  /** How long a process may stay silent before the others forget it (FORGOTTEN_AFTER_MS). */
  forgottenAfterMs?: number;
  /**
   * The live processes to assume until the first beat counts them: this instance's own, which it
   * knows (the others' shares can only make each smaller).
   */
  assumedLive?: number;
  /** A beat that failed (the database did not answer); the last count stays in force. */
  onError?: (error: unknown) => void;
  /** The count of live processes changed. */
  onCount?: (live: number) => void;
  /** Run after each beat that reached the database (this process's own clean-up). */
  afterBeat?: () => Promise<void>;
}

export class InstanceRegistry {
  /** This process's row, and the instance its reservations name. */
  readonly id = newId();
  readonly #sql: Sql;
  /**
   * Its own, on the pool it beats through: releasing reservations takes no batch nor lane, so it
   * need not be the store's (whose batches and lanes carry the writes).
   */
  readonly #reservations: StorageReservations;
  readonly #heartbeatMs: number;
  readonly #forgottenAfterMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #onCount: (live: number) => void;
  readonly #afterBeat: () => Promise<void>;
  #live: number;
  #counted = false;
  #timer: NodeJS.Timeout | null = null;
  #beating: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(sql: Sql, options: InstanceRegistryOptions = {}) {
    this.#sql = sql;
    this.#reservations = new StorageReservations(sql);
    this.#heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.#forgottenAfterMs = options.forgottenAfterMs ?? FORGOTTEN_AFTER_MS;
    this.#live = Math.max(1, options.assumedLive ?? 1);
    this.#onError = options.onError ?? (() => undefined);
    this.#onCount = options.onCount ?? (() => undefined);
    this.#afterBeat = options.afterBeat ?? (async () => undefined);
  }

  /** Live processes serving the storage endpoint, this one included (assumedLive until the first beat). */
  get live(): number {
    return this.#live;
  }

  /** Whether a beat has counted the live processes yet. */
  get counted(): boolean {
    return this.#counted;
  }

  /**
   * Registers (the first beat, awaited: the endpoint serves once its reservations cannot be taken
   * for an unregistered process's) and starts beating; a database that does not answer yet is
   * tried again every FIRST_BEAT_RETRY_MS until it does, the count staying at assumedLive.
   */
  async start(): Promise<void> {
    await this.beat();
    this.#schedule();
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(
      () => {
        void this.beat().then(() => this.#schedule());
      },
      this.#counted ? this.#heartbeatMs : FIRST_BEAT_RETRY_MS,
    );
    this.#timer.unref();
  }

  /** One beat: this process is live, the count is fresh, the long-silent are forgotten. */
  beat(): Promise<void> {
    this.#beating = this.#beating.then(async () => {
      try {
        await this.#sql`
          INSERT INTO gateway_instances (id) VALUES (${this.id})
          ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`;
        const [row] = await this.#sql<{ live: bigint }[]>`
          SELECT count(*) AS live FROM gateway_instances
          WHERE heartbeat_at > now() - make_interval(secs => ${(LIVE_WITHIN_BEATS * this.#heartbeatMs) / 1000})`;
        const live = Math.max(1, Number(row?.live ?? 1));
        this.#counted = true;
        if (live !== this.#live) {
          this.#live = live;
          this.#onCount(live);
        }
        await this.#forgetSilent();
        await this.#afterBeat();
      } catch (error) {
        this.#onError(error);
      }
    });
    return this.#beating;
  }

  /** Leaves the registry: the others' shares grow at their next beat. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#beating;
    try {
      await this.#sql`DELETE FROM gateway_instances WHERE id = ${this.id}`;
      await this.#reservations.releaseOrphaned();
    } catch (error) {
      this.#onError(error);
    }
  }

  /**
   * Forgets processes silent for forgottenAfterMs and releases every reservation whose process is
   * no longer registered (one that stopped cleanly left its row already).
   */
  async #forgetSilent(): Promise<void> {
    await this.#sql`
      DELETE FROM gateway_instances
      WHERE heartbeat_at < now() - make_interval(secs => ${this.#forgottenAfterMs / 1000})`;
    await this.#reservations.releaseOrphaned();
  }
}
