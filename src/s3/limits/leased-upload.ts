/**
 * An upload admitted from a lease (leases.ts), from its turn at its key until its record is written
 * (record-queue.ts). It outlives its request by the record's linger, and the young collections it
 * lives through copy every object that waits that long. So it is one object: its admission (the
 * lease and the room it took), the interval it was in flight at the store, its record and its
 * turn, where an admission, a stamp, a turn, a record and their closures were a dozen
 * (BENCHMARKS.md, change 24). Its turn ends once its send is over and its record queued.
 */
import { stampClock } from '../../store/storage-objects.js';
import type { WriteRecord } from '../../store/storage-records.js';
import type { UsageScope } from '../../store/usage-scopes.js';
import { FreeTurn, type EndTurn, type KeyTurns } from './key-turns.js';
import type { AdmittingLease } from './leases.js';

/**
 * A record of this process: the SSE-C key headers a HEAD of its object needs (from the upload's
 * request), and how often its key was observed.
 */
export interface LeasedRecord extends WriteRecord {
  readonly customerKey: Readonly<Record<string, string>>;
  readonly observations: number;
}

/**
 * `record` one observation on, with no lease: what the store was found to hold under its key
 * (`found`: its size, and the interval of the HEAD that asked), or, to be observed later, what the
 * record held.
 */
export function observationOf(
  record: LeasedRecord,
  found: Pick<WriteRecord, 'bytes' | 'writer' | 'from' | 'until'>,
): LeasedRecord {
  return {
    bucket: record.bucket,
    key: record.key,
    scopes: record.scopes,
    customerKey: record.customerKey,
    bytes: found.bytes,
    writer: found.writer,
    from: found.from,
    until: found.until,
    leaseId: null,
    leasedBytes: 0,
    observations: record.observations + 1,
  };
}

export class LeasedUpload extends FreeTurn implements LeasedRecord {
  readonly bucket: string;
  readonly key: string;
  readonly lease: AdmittingLease;
  readonly leasedBytes: number;
  readonly writer: string;
  readonly customerKey: Readonly<Record<string, string>>;
  readonly observations = 0;
  /** Its length once the store answered that it stored it; undefined while it stored nothing or was not heard. */
  bytes: number | null | undefined = undefined;
  /** When it was sent and when the store answered (or the send ended): µs of stampClock, 0 until then. */
  from = 0;
  until = 0;
  readonly #turns: KeyTurns;
  /** How its turn ends when it had to wait for it (KeyTurns.take); null while it is its own turn. */
  #endTurn: EndTurn | null = null;

  constructor(
    bucket: string,
    key: string,
    lease: AdmittingLease,
    length: number,
    writer: string,
    customerKey: Readonly<Record<string, string>>,
    turns: KeyTurns,
  ) {
    super();
    this.bucket = bucket;
    this.key = key;
    this.lease = lease;
    this.leasedBytes = length;
    this.writer = writer;
    this.customerKey = customerKey;
    this.#turns = turns;
  }

  get scopes(): readonly UsageScope[] {
    return this.lease.scopes;
  }

  get leaseId(): string {
    return this.lease.id;
  }

  /** Takes its turn at its key (its name in its bucket) as itself when nobody has one; whether it did. */
  takeFreeTurn(): boolean {
    return this.#turns.claimFree(this.bucket, this.key, this);
  }

  /** Its turn came after waiting (KeyTurns.take); `end` ends it. */
  tookTurn(end: EndTurn): void {
    this.#endTurn = end;
  }

  /** It goes to the store now. */
  sending(): void {
    this.from = stampClock();
  }

  /** The store answered now: it holds the upload's bytes under the key when `stored`. */
  answered(stored: boolean): void {
    this.until = stampClock();
    if (stored) this.bytes = this.leasedBytes;
  }

  /** The send is over, however it ended: an interval no answer closed closes now. */
  over(): void {
    if (this.until === 0) this.until = stampClock();
  }

  /**
   * Its send is over and its record queued: its turn ends. The next write to its key from this
   * process may go now; one of the exact path first waits for the record (storage-quotas.ts).
   */
  endTurn(): void {
    if (this.#endTurn === null) this.#turns.endFree(this.bucket, this.key, this);
    else this.#endTurn();
  }
}
