/**
 * The room this process holds in leases (store/storage-leases.ts), one per set of counted scopes,
 * and the uploads it admits from them in memory: an upload whose whole length, and one object,
 * fit what its lease has left is admitted with no statement on its path. That length is the most
 * it can add to what is stored, so the quota holds as it does for an upload that reserved its
 * room. An upload that does not fit takes the exact path, and the lease asks for more room in the
 * background once half of it is used (or it had none).
 *
 * A lease is trusted only while this process has reached the database recently: the others
 * forget a process silent for FORGOTTEN_AFTER_MS and release its reservations, leases included,
 * and a process cut off from the database must not go on admitting from room it may no longer
 * hold. Its leases are dropped then, and new ones taken once the database answers again.
 */
// Times come from the global `performance` (node:perf_hooks' own object), whose clock tests can fake.
import type { Logger } from '../../observability/logger.js';
import { newId } from '../../security/ids.js';
import { FORGOTTEN_AFTER_MS } from '../../store/instances.js';
import type { StorageLeases } from '../../store/storage-leases.js';
import type { ScopeQuota, StorageChange, UsageScope } from '../../store/usage-scopes.js';

/** The most room one lease asks for at a time. */
const LEASE_BYTES = 64 * 1024 * 1024;
const LEASE_OBJECTS = 4096;
/** A lease smaller than this is not worth holding: the scopes are near their quota. */
const LEAST_LEASE_BYTES = 1024 * 1024;
/** After a lease was refused, how long before it is asked for again. */
const REFUSED_RETRY_MS = 1_000;
/** Leases are used while the database answered this process this recently. */
const TRUSTED_FOR_MS = FORGOTTEN_AFTER_MS / 3;
/** A lease nothing was admitted from for this long goes back (its room is the others' again). */
const IDLE_MS = 30_000;

/**
 * A lease as the uploads it admitted see it: its record names the lease by its id and counts under
 * its scopes (store/storage-records.ts). Each upload holds its lease itself, not an admission
 * object of its own: it waits for its record, and what waits that long should be one object.
 */
export interface AdmittingLease {
  readonly id: string;
  readonly scopes: readonly UsageScope[];
}

interface Lease extends AdmittingLease {
  /** The list it was last admitted under (equal lists from renewed cache entries replace it). */
  quotas: readonly ScopeQuota[];
  /** Room not yet admitted. */
  bytes: number;
  objects: number;
  /** The room of the last grant (refilled once half of it is used). */
  granted: StorageChange;
  taking: boolean;
  refusedAt: number;
  /** When an upload was last admitted from it, and how many admitted are not recorded yet. */
  usedAt: number;
  unrecorded: number;
  /** It admits nothing more (idle, its quotas changed, or trust was lost). */
  retired: boolean;
}

function laneOf(quotas: readonly ScopeQuota[]): string {
  return quotas
    .map((quota) => quota.scope)
    .sort()
    .join(' ');
}

function sameQuotas(a: readonly ScopeQuota[], b: readonly ScopeQuota[]): boolean {
  return (
    a.length === b.length &&
    a.every((quota, index) => {
      const other = b[index];
      return (
        other !== undefined &&
        other.scope === quota.scope &&
        other.maxBytes === quota.maxBytes &&
        other.maxObjects === quota.maxObjects
      );
    })
  );
}

export class LeaseBook {
  readonly #store: StorageLeases;
  readonly #instanceId: string;
  readonly #logger: Logger;
  readonly #leases = new Map<string, Lease>();
  /**
   * Leases that admit nothing more (idle, their quotas changed, or trust was lost), by id, until
   * their rows are released (`retired`, `forget`).
   */
  readonly #retired = new Map<string, Lease>();
  readonly #lanes = new WeakMap<readonly ScopeQuota[], string>();
  #reachedAt = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(store: StorageLeases, instanceId: string, logger: Logger) {
    this.#store = store;
    this.#instanceId = instanceId;
    this.#logger = logger;
  }

  /** The database answered this process (a heartbeat, a lease or a record written). */
  reached(): void {
    this.#reachedAt = performance.now();
  }

  /** The ids of every lease this process holds (its rows until they are released). */
  ids(): string[] {
    return [...[...this.#leases.values()].map((lease) => lease.id), ...this.#retired.keys()];
  }

  /** Retires the leases nothing was admitted from lately. */
  retireIdle(): void {
    const now = performance.now();
    for (const [lane, lease] of [...this.#leases])
      if (lease.unrecorded === 0 && now - lease.usedAt > IDLE_MS) this.#retire(lane, lease);
  }

  /**
   * The retired leases whose rows may go once the records waiting are written: every upload they
   * admitted has been queued for its record, and none is asking for more room for them.
   */
  retired(): string[] {
    return [...this.#retired.values()]
      .filter((lease) => lease.unrecorded === 0 && !lease.taking)
      .map((lease) => lease.id);
  }

  /** The rows of the leases `ids` were released. */
  forget(ids: readonly string[]): void {
    for (const id of ids) this.#retired.delete(id);
  }

  /**
   * Admits an upload of `length` bytes and one object into `bucket` under `quotas` from its lease:
   * the lease, or null (the exact path then): no lease yet, not enough room left in it, or the
   * database not reached lately.
   */
  admit(quotas: readonly ScopeQuota[], bucket: string, length: number): AdmittingLease | null {
    if (this.#closed) return null;
    const now = performance.now();
    if (now - this.#reachedAt > TRUSTED_FOR_MS) {
      this.#retireAll();
      return null;
    }
    const lane = this.#laneOf(quotas);
    let lease = this.#leases.get(lane);
    if (lease !== undefined && lease.quotas !== quotas) {
      if (sameQuotas(lease.quotas, quotas)) lease.quotas = quotas;
      else {
        this.#retire(lane, lease);
        lease = undefined;
      }
    }
    if (lease === undefined) {
      lease = {
        id: newId(),
        quotas,
        scopes: quotas.map((quota) => quota.scope),
        bytes: 0,
        objects: 0,
        granted: { bytes: 0, objects: 0 },
        taking: false,
        refusedAt: Number.NEGATIVE_INFINITY,
        usedAt: now,
        unrecorded: 0,
        retired: false,
      };
      this.#leases.set(lane, lease);
    }
    if (lease.bytes < length || lease.objects < 1) {
      this.#take(lease, bucket);
      return null;
    }
    lease.bytes -= length;
    lease.objects -= 1;
    lease.usedAt = now;
    lease.unrecorded += 1;
    if (lease.bytes < lease.granted.bytes / 2 || lease.objects < lease.granted.objects / 2)
      this.#take(lease, bucket);
    return lease;
  }

  /**
   * An upload of `length` bytes admitted from `admitting` that was never sent: its room goes back
   * to the lease (if still in use).
   */
  unadmit(admitting: AdmittingLease, length: number): void {
    const lease = admitting as Lease;
    lease.unrecorded -= 1;
    if (lease.retired) return;
    lease.bytes += length;
    lease.objects += 1;
  }

  /** An upload admitted from `admitting` has its record queued: its room is given back by the record. */
  recorded(admitting: AdmittingLease): void {
    (admitting as Lease).unrecorded -= 1;
  }

  /** The lane of `quotas`, remembered per list (StorageQuotas.quotasOf gives the same list to every request). */
  #laneOf(quotas: readonly ScopeQuota[]): string {
    let lane = this.#lanes.get(quotas);
    if (lane === undefined) {
      lane = laneOf(quotas);
      this.#lanes.set(quotas, lane);
    }
    return lane;
  }

  /**
   * Gives the room not yet admitted of the lease under `quotas` back to its scopes, before the
   * exact path asks them again for room they refused. Whether there was any.
   */
  async giveBack(quotas: readonly ScopeQuota[]): Promise<boolean> {
    const lease = this.#leases.get(this.#laneOf(quotas));
    if (lease === undefined || (lease.bytes <= 0 && lease.objects <= 0)) return false;
    await this.#giveBackRest(lease);
    return true;
  }

  /** Gives what `lease` has not admitted back to its scopes; it is not topped up again for a while. */
  async #giveBackRest(lease: Lease): Promise<void> {
    const room = { bytes: lease.bytes, objects: lease.objects };
    lease.bytes = 0;
    lease.objects = 0;
    lease.refusedAt = performance.now();
    await this.#store.giveBack(lease.id, room);
  }

  /** Admits nothing more; the leases' rows stay until their records are written (release them then). */
  close(): void {
    this.#closed = true;
  }

  /** Asks for more room for `lease` in the background, one request at a time, not soon after a refusal. */
  #take(lease: Lease, bucket: string): void {
    if (lease.taking || performance.now() - lease.refusedAt < REFUSED_RETRY_MS) return;
    lease.taking = true;
    this.#store
      .take(
        this.#instanceId,
        lease.id,
        lease.quotas,
        bucket,
        { bytes: LEASE_BYTES, objects: LEASE_OBJECTS },
        LEAST_LEASE_BYTES,
      )
      .then(
        async (granted) => {
          this.reached();
          // Near a quota (or the bucket's sizes not known): what is left goes back to the exact path.
          if (granted.bytes === 0) return this.#giveBackRest(lease);
          lease.bytes += granted.bytes;
          lease.objects += granted.objects;
          lease.granted = granted;
        },
        (error: unknown) => {
          lease.refusedAt = performance.now();
          this.#logger.warn(
            { err: error },
            'could not lease room under a storage quota; uploads take the exact path',
          );
        },
      )
      .catch((error: unknown) => {
        this.#logger.warn({ err: error }, 'could not give unused leased room back; it goes with the lease');
      })
      .finally(() => {
        lease.taking = false;
      });
  }

  /** Admits nothing more from `lease`; its row goes once its records are written (`retired`). */
  #retire(lane: string, lease: Lease): void {
    this.#leases.delete(lane);
    this.#retired.set(lease.id, lease);
    lease.retired = true;
    lease.bytes = 0;
    lease.objects = 0;
  }

  #retireAll(): void {
    for (const [lane, lease] of [...this.#leases]) this.#retire(lane, lease);
  }
}
