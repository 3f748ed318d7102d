/**
 * The records of uploads admitted from a lease (store/storage-records.ts), written after the
 * client's answer: they wait LINGER_MS to go together, at most LARGEST to a statement, one
 * statement at a time. A statement the database does not take is tried again after pauses; a
 * record never written leaves the count as it was (a recount brings it back to the store).
 *
 * A key may have several records waiting: this process's writes to one key take turns only while
 * in flight (key-turns.ts), and a statement orders the records of a key by those intervals
 * (store/storage-records.ts). A write of the exact path reads what its key holds from the
 * database, so it first waits for the records of its keys queued before it (`written`), which go
 * at once.
 */
import type { Logger } from '../../observability/logger.js';
import type { StorageRecords, WriteRecord } from '../../store/storage-records.js';

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

export interface RecordQueueOptions<R extends WriteRecord> {
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

export class RecordQueue<R extends WriteRecord> {
  readonly #store: StorageRecords;
  readonly #logger: Logger;
  readonly #options: RecordQueueOptions<R>;
  #records: R[] = [];
  /** The records of the statement under way. */
  #sending: readonly R[] = [];
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> | null = null;
  /** Records written or given up so far (statements go in the order their records were queued). */
  #done = 0;
  /**
   * Writes waiting for the records queued before them, each resolved once #done reaches its count:
   * while any waits, statements go without lingering.
   */
  #waiters: { readonly upTo: number; readonly resolve: () => void }[] = [];

  constructor(store: StorageRecords, logger: Logger, options: RecordQueueOptions<R>) {
    this.#store = store;
    this.#logger = logger;
    this.#options = options;
  }

  /** Queues `record`. */
  add(record: R): void {
    this.#records.push(record);
    if (this.#records.length >= LARGEST) this.#start();
    else this.#timer ??= setTimeout(() => this.#start(), LINGER_MS);
  }

  /**
   * Resolves once the records that `matches` among those queued before the call are written (or
   * given up), sending them at once: a write of the exact path is about to read what they left.
   */
  written(matches: (record: R) => boolean): Promise<void> {
    // Records are done in the order queued: the statement under way first, then those waiting.
    const waiting = this.#records.findLastIndex(matches);
    const sending = waiting === -1 ? this.#sending.findLastIndex(matches) : -1;
    if (waiting === -1 && sending === -1) return Promise.resolve();
    const upTo = this.#done + (waiting === -1 ? sending : this.#sending.length + waiting) + 1;
    const written = new Promise<void>((resolve) => this.#waiters.push({ upTo, resolve }));
    this.#start();
    return written;
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
    this.#writing = this.#writeBatch().finally(() => {
      this.#writing = null;
      if (this.#waiters.length > 0 || this.#records.length >= LARGEST) this.#start();
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
    this.#sending = records;
    const doubtful = await this.#write(records);
    this.#sending = [];
    this.#done += records.length;
    const ready = this.#waiters.filter((waiter) => waiter.upTo <= this.#done);
    if (ready.length > 0) {
      this.#waiters = this.#waiters.filter((waiter) => waiter.upTo > this.#done);
      for (const waiter of ready) waiter.resolve();
    }
    if (doubtful === null) this.#options.onGivenUp?.(records.length);
    for (const index of doubtful ?? []) {
      const record = records[index];
      if (record !== undefined) this.#options.onDoubt(record);
    }
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
