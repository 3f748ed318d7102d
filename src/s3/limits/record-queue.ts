/**
 * The records of uploads admitted from a lease (store/storage-records.ts), written after the
 * client's answer: they wait LINGER_MS to go together, at most LARGEST to a statement, one
 * statement at a time. A statement the database does not take is tried again after pauses; a
 * record never written leaves the count as it was (a recount brings it back to the store).
 *
 * Each record's upload keeps its turn at its key until the record is written, so a key has at most
 * one record waiting, and this process's writes to one key are recorded in the order the store
 * took them. A write that has to wait for a turn hurries the records on (`hurry`).
 */
import type { Logger } from '../../observability/logger.js';
import type { StorageRecords, WriteRecord } from '../../store/storage-records.js';

/** A record to write, told once it is written or given up (its upload's turn at its key ends then). */
export interface QueuedRecord extends WriteRecord {
  settled(): void;
}

/**
 * Each statement costs its process 150-300 µs of CPU whatever it carries (its round trip's system
 * calls), each record about 1.5 µs: measured alone, 3.4 µs per record in statements of 120 and
 * 2.4 in statements of 480, and the quota PUT about a point cheaper with this linger than with
 * 50 ms (BENCHMARKS.md, change 27). Usage shows a write at most this late; the quota is not
 * affected (leased room is reserved before the upload is admitted).
 */
export const LINGER_MS = 200;
/** A statement's records at most: at this linger, a process of about 5,000 uploads per second. */
const LARGEST = 1024;
const RETRY_DELAYS_MS = [250, 1_000, 4_000, 15_000];

export interface RecordQueueOptions<R extends QueuedRecord> {
  /** A record that changed nothing because another write to its key may have come after it. */
  readonly onDoubt: (record: R) => void;
  /**
   * A statement was written (the database answered): how many of its records it counted, and how
   * many it left in doubt (each also given to onDoubt).
   */
  readonly onWritten: (counted: number, doubtful: number) => void;
  /** Records the database did not take, the last retry included: they change nothing. */
  readonly onGivenUp?: (count: number) => void;
  readonly retryDelaysMs?: readonly number[];
}

export class RecordQueue<R extends QueuedRecord> {
  readonly #store: StorageRecords;
  readonly #logger: Logger;
  readonly #options: RecordQueueOptions<R>;
  #records: R[] = [];
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> | null = null;
  /** A write waits for a record queued now: the next statement goes without lingering. */
  #hurried = false;

  constructor(store: StorageRecords, logger: Logger, options: RecordQueueOptions<R>) {
    this.#store = store;
    this.#logger = logger;
    this.#options = options;
  }

  /** Queues `record`; its `settled` is called once it is written (or given up). */
  add(record: R): void {
    this.#records.push(record);
    if (this.#records.length >= LARGEST) this.#start();
    else this.#timer ??= setTimeout(() => this.#start(), LINGER_MS);
  }

  /**
   * Writes what waits at once, or right after the statement under way (a write waits for a turn
   * at a key, which may end only with a record).
   */
  hurry(): void {
    if (this.#records.length === 0) return;
    this.#hurried = true;
    this.#start();
  }

  /** Writes everything waiting; resolves once the queue is empty. */
  async flush(): Promise<void> {
    while (this.#records.length > 0 || this.#writing !== null) {
      this.#start();
      await this.#writing;
    }
  }

  #start(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#writing !== null || this.#records.length === 0) return;
    this.#hurried = false;
    this.#writing = this.#writeBatch().finally(() => {
      this.#writing = null;
      if (this.#hurried || this.#records.length >= LARGEST) this.#start();
      else if (this.#records.length > 0) this.#timer ??= setTimeout(() => this.#start(), LINGER_MS);
    });
  }

  /**
   * One statement of what waits. What comes meanwhile waits its LINGER_MS in turn (going at once
   * only when a statement is full): going as soon as the statement before was answered made
   * statements of the few records of one round trip (BENCHMARKS.md, change 20).
   */
  async #writeBatch(): Promise<void> {
    const records = this.#records.splice(0, LARGEST);
    const doubtful = await this.#write(records);
    if (doubtful === null) this.#options.onGivenUp?.(records.length);
    for (const index of doubtful ?? []) {
      const record = records[index];
      if (record !== undefined) this.#options.onDoubt(record);
    }
    for (const record of records) record.settled();
  }

  /** The doubtful of the batch, or null when it was given up. */
  async #write(records: readonly R[]): Promise<readonly number[] | null> {
    const pauses = this.#options.retryDelaysMs ?? RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const doubtful = await this.#store.write(records);
        this.#options.onWritten(records.length - doubtful.length, doubtful.length);
        return doubtful;
      } catch (error) {
        const pause = pauses[attempt];
        if (pause === undefined) {
          this.#logger.error(
            { err: error, records: records.length },
            'could not record uploads against the storage quota; recount their buckets',
          );
          return null;
        }
        if (attempt === 0)
          this.#logger.warn(
            { err: error },
            'could not record uploads against the storage quota; trying again',
          );
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}
