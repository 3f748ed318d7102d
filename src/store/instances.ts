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

/** How often a process beats, and re-counts the live ones. */
export const HEARTBEAT_MS = 2_000;
/** A process counts as live while its last beat is this recent: three missed beats and it is out. */
const LIVE_WITHIN_MS = 3 * HEARTBEAT_MS;
/**
 * A process silent this long is forgotten and its reservations released: long enough that a
 * process merely paused (a long garbage collection, a stalled disk) keeps its uploads' room.
 */
const FORGOTTEN_AFTER_MS = 15 * HEARTBEAT_MS;

export interface InstanceRegistryOptions {
  heartbeatMs?: number;
  /** A beat that failed (the database did not answer); the last count stays in force. */
  onError?: (error: unknown) => void;
  /** The count of live processes changed. */
  onCount?: (live: number) => void;
}

export class InstanceRegistry {
  /** This process's row, and the instance its reservations name. */
  readonly id = newId();
  readonly #sql: Sql;
  readonly #heartbeatMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #onCount: (live: number) => void;
  #live = 1;
  #timer: NodeJS.Timeout | null = null;
  #beating: Promise<void> = Promise.resolve();

  constructor(sql: Sql, options: InstanceRegistryOptions = {}) {
    this.#sql = sql;
    this.#heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    this.#onError = options.onError ?? (() => undefined);
    this.#onCount = options.onCount ?? (() => undefined);
  }

  /** Live processes serving the storage endpoint, this one included (1 until the first beat). */
  get live(): number {
    return this.#live;
  }

  /** Registers and starts beating; a database that does not answer yet leaves the count at 1. */
  async start(): Promise<void> {
    await this.beat();
    this.#timer = setInterval(() => void this.beat(), this.#heartbeatMs);
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
          WHERE heartbeat_at > now() - make_interval(secs => ${LIVE_WITHIN_MS / 1000})`;
        const live = Math.max(1, Number(row?.live ?? 1));
        if (live !== this.#live) {
          this.#live = live;
          this.#onCount(live);
        }
        await this.#forgetSilent();
      } catch (error) {
        this.#onError(error);
      }
    });
    return this.#beating;
  }

  /** Leaves the registry: the others' shares grow at their next beat. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#beating;
    try {
      await this.#sql`DELETE FROM gateway_instances WHERE id = ${this.id}`;
      await this.#forgetSilent();
    } catch (error) {
      this.#onError(error);
    }
  }

  /**
   * Forgets processes silent for FORGOTTEN_AFTER_MS and releases every reservation whose process is
   * no longer registered (one that stopped cleanly left its row already). The released room goes
   * back to each scope, its rows locked in scope order like every other change of storage_usage.
   */
  async #forgetSilent(): Promise<void> {
    await this.#sql`
      WITH forgotten AS (
        DELETE FROM gateway_instances
        WHERE heartbeat_at < now() - make_interval(secs => ${FORGOTTEN_AFTER_MS / 1000})
        RETURNING id
      ),
      orphans AS (
        DELETE FROM storage_reservations AS reservation
        WHERE reservation.instance_id IN (SELECT id FROM forgotten)
           OR NOT EXISTS (SELECT 1 FROM gateway_instances AS instance WHERE instance.id = reservation.instance_id)
        RETURNING scopes, bytes, objects
      ),
      per_scope AS (
        SELECT scope, sum(bytes) AS bytes, sum(objects) AS objects
        FROM orphans, unnest(orphans.scopes) AS scope GROUP BY scope
      ),
      locked AS (
        SELECT scope FROM storage_usage WHERE scope IN (SELECT scope FROM per_scope) ORDER BY scope FOR UPDATE
      )
      UPDATE storage_usage AS usage SET
        reserved_bytes = greatest(0, usage.reserved_bytes - per_scope.bytes),
        reserved_objects = greatest(0, usage.reserved_objects - per_scope.objects)
      FROM per_scope
      WHERE usage.scope = per_scope.scope AND usage.scope IN (SELECT scope FROM locked)`;
  }
}
