/**
 * Storage quotas around the writes the storage endpoint forwards. A bucket is counted while a
 * quota applies to it (its own, or its organisation's); writes to any other bucket pass straight
 * through, at the cost of two property reads.
 *
 * For a counted bucket, an upload is refused with 403 QuotaExceeded before a byte of its body is
 * read (and before `100 Continue`) when it would not fit: PutObject and form uploads by their
 * length (the decoded length of an aws-chunked body), copies by the source's size, multipart
 * uploads at creation (by x-amz-mp-object-size when the client declares it), at each part (beside
 * the parts already held) and at completion (by the sizes of the parts the store holds). Room is
 * reserved in the database for the upload's whole transfer (store/storage-reservations.ts), so two
 * uploads cannot both pass a check that only one of them fits, on any instance.
 *
 * What is stored is accounted from what the store holds once it answered: the size written, less
 * the size of the object it replaced, read while the write holds its key (one counted write per key
 * at a time, on every instance: what a write replaces is then exact); a deletion subtracts what is
 * gone. The gateway keeps the size of every object of a counted bucket (store/storage-objects.ts,
 * complete from the listing that started the count), so an upload or a deletion reads what it
 * replaces in the statement that reserves its room; only a bucket counted before it kept them asks
 * the store with a HEAD. The parts of a multipart upload count from the moment the store holds
 * them until the upload completes (they become the object) or is aborted (store/storage-uploads.ts). The quota counts current objects: a write naming a version id is
 * refused by the classification (operations.ts), a deletion of a version is counted by what the
 * current object was before and is after.
 *
 * PutObject and form uploads into a bucket with plenty of room take none of this when their
 * process has leased room for them (leases.ts): admitted in memory, they hold their key only in
 * this process, and are recorded after the client's answer (record-queue.ts,
 * store/storage-records.ts), ordered against other processes' writes of the key by when each was
 * in flight; a record that cannot be ordered so is settled by asking the store (#observe).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { headerValue, type HeaderMap } from '../../protocol/headers.js';
import { S3Error } from '../../protocol/errors.js';
import { queryValue } from '../../protocol/query.js';
import type { Logger } from '../../observability/logger.js';
import type { QuotaRecordOutcome } from '../../observability/metrics.js';
import type { BucketRecord, StorageQuota } from '../../store/records.js';
import { newId } from '../../security/ids.js';
import {
  bucketScope,
  NO_CHANGE,
  organisationScope,
  quotaApplies,
  type ScopeQuota,
  type StorageChange,
  type UsageScope,
} from '../../store/usage-scopes.js';
import {
  keptOf,
  stampClock,
  type KeptSizes,
  type ObjectRef,
  type WriteStamp,
} from '../../store/storage-objects.js';
import type { StorageLeases } from '../../store/storage-leases.js';
import { CLOCK_MARGIN_MICROS, type StorageRecords } from '../../store/storage-records.js';
import type { StorageReservations } from '../../store/storage-reservations.js';
import type { StorageUploadsStore, UploadRef } from '../../store/storage-uploads.js';
import { isInBucket, type Authorised, type InBucket, type Planned } from '../stages.js';
import { announcesBody } from '../upstream/body.js';
import { CountedDeletions, type KeyHold } from '../upstream/counted-deletions.js';
import type { CompletionQuota } from '../upstream/completion.js';
import { askStore, customerKeyHeaders, headObject, objectSize } from '../upstream/probe.js';
import type { StoreStatusHook, Upstream } from '../upstream/upstream.js';
import { KeyTurns, type EndTurn } from './key-turns.js';
import { LeasedUpload, observationOf, type LeasedRecord } from './leased-upload.js';
import { LeaseBook } from './leases.js';
import { RecordQueue } from './record-queue.js';

/**
 * Sends a write; `beforeAnswer`, when given, is to run with the store's status before the client
 * hears it (a write that records nothing gives none, and its answer is not held up).
 */
export type SendWrite = (beforeAnswer?: StoreStatusHook) => Promise<void>;

export interface StorageQuotaOptions {
  /** How long a write waits for another counted write to the same key before 503 SlowDown. */
  readonly keyWaitMs?: number;
  /** Pauses between attempts to record a write the database did not take at once. */
  readonly settleRetryDelaysMs?: readonly number[];
  /**
   * Where uploads are admitted from leased room and recorded after the answer (PutObject and form
   * uploads); without, every counted write takes the exact path.
   */
  readonly leased?: { readonly leases: StorageLeases; readonly records: StorageRecords };
  /** Counts what became of the records of leased uploads (the metrics' gateway_quota_records_total). */
  readonly countRecords?: (outcome: QuotaRecordOutcome, count: number) => void;
}

/**
 * How often a doubtful record's key is asked of the store before it is left to a recount: the
 * pauses double from OBSERVE_AFTER_MS, about half a minute in all (as long as a write waits for
 * a key another holds).
 */
const OBSERVATIONS_AT_MOST = 6;
/** How long after a doubtful record its key is first asked of the store: the writes' intervals then lie apart. */
const OBSERVE_AFTER_MS = (2 * CLOCK_MARGIN_MICROS) / 1000;

const NO_CUSTOMER_KEY: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The SSE-C key headers of an upload's request, read only when it names an SSE-C algorithm: a
 * record waits tens of milliseconds, and should not keep the request's headers alive meanwhile.
 */
function customerKeyOf(headers: HeaderMap): Readonly<Record<string, string>> {
  return headers['x-amz-server-side-encryption-customer-algorithm'] === undefined
    ? NO_CUSTOMER_KEY
    : customerKeyHeaders(headers, 'object');
}

const KEY_WAIT_MS = 30_000;
const SETTLE_RETRY_DELAYS_MS = [250, 1_000, 4_000, 15_000];
/** The first pause before a held key is asked for again, doubled up to the longest. */
const FIRST_KEY_POLL_MS = 5;
const LONGEST_KEY_POLL_MS = 250;

/**
 * The key a counted write holds: in the database (`held`, a reservation's key, which other
 * instances see), and among this process's turns (`name` within `space`, key-turns.ts).
 */
interface WriteKey {
  readonly held: string;
  readonly space: string;
  readonly name: string;
}

/** The key of a counted write to an object; its turn is the object key's within its bucket. */
function objectKey(bucket: string, key: string): WriteKey {
  return { held: objectHeldKey(bucket, key), space: bucket, name: key };
}

function objectHeldKey(bucket: string, key: string): string {
  return `object:${bucket}/${key}`;
}

/** The key of an upload of a part; its turn is the part number's within its upload (no bucket name has a colon). */
function partKey(upload: UploadRef, partNumber: string): WriteKey {
  const space = `part:${upload.bucket}/${upload.uploadId}`;
  return { held: `${space}/${partNumber}`, space, name: partNumber };
}

/** The length of the body the store receives, as forward.ts sends it. */
function uploadLength(stage: Planned): number {
  if (!announcesBody(stage.exchange.headers)) return 0;
  if (stage.body.decodedLength === undefined) throw new S3Error('MissingContentLength');
  return stage.body.decodedLength;
}

/**
 * The length a copy reads: UploadPartCopy's source range when it names one, else the whole source
 * (CopyObject copies the whole object whatever the header says). A range whose offsets are out of
 * order or past the end of the source is refused before room is asked for it.
 */
function copyLength(stage: Planned, sourceSize: number | null): number | null {
  const header = headerValue(stage.headers, 'x-amz-copy-source-range');
  if (stage.operation.name !== 'UploadPartCopy' || header === undefined) return sourceSize;
  const range = /^bytes=(\d+)-(\d+)$/.exec(header);
  const first = Number(range?.[1]);
  const last = Number(range?.[2]);
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || last < first)
    throw new S3Error('InvalidCopySourceRange');
  if (sourceSize !== null && last >= sourceSize)
    throw new S3Error(
      'InvalidCopySourceRange',
      undefined,
      `Range specified is not valid for source object of size: ${sourceSize}`,
    );
  return last - first + 1;
}

/** What replacing an object of `before` bytes (null: none) by one of `after` bytes (null: none) changes. */
function replacing(after: number | null, before: number | null): StorageChange {
  return {
    bytes: (after ?? 0) - (before ?? 0),
    objects: (after === null ? 0 : 1) - (before === null ? 0 : 1),
  };
}

function uploadOf(stage: Counted): UploadRef {
  return { bucket: stage.bucket, uploadId: queryValue(stage.query, 'uploadId') ?? '' };
}

const succeeded = (status: number): boolean => status < 300;

const NO_QUOTAS: readonly ScopeQuota[] = Object.freeze([]);

/** The quotas of a counted `bucket`, its organisation's storage limits being `organisation`. */
function quotasUnder(bucket: BucketRecord, organisation: StorageQuota): readonly ScopeQuota[] {
  const quotas: ScopeQuota[] = [{ scope: bucketScope(bucket.name), ...bucket.quota }];
  if (quotaApplies(organisation))
    quotas.push({ scope: organisationScope(bucket.organisationId), ...organisation });
  return Object.freeze(quotas);
}

/** A request to a bucket counted under a quota. */
type Counted = InBucket<Planned>;

/**
 * Room held for a write in flight: its reservation (null: the bucket is not counted after all),
 * and the size of the object the write replaces when the sizes kept of the bucket tell it (null:
 * none; undefined: the store is to be asked).
 */
interface Held {
  readonly id: string | null;
  readonly replaced?: number | null;
}

function objectOf(stage: Counted): ObjectRef {
  return { bucket: stage.bucket, key: stage.key };
}

/**
 * What a write that stored nothing, or whose outcome was not heard, leaves kept of `object`: the
 * mark its hold made of a key the sizes kept say is empty goes; a size is left as it is (the
 * control plane's deletion, which holds no key, may have changed it since it was read).
 */
function untouched(object: ObjectRef, held: Held): KeptSizes | undefined {
  return held.replaced === null ? keptOf(object, null) : undefined;
}

export class StorageQuotas {
  readonly #reservations: StorageReservations;
  readonly #uploads: StorageUploadsStore;
  readonly #instanceId: string;
  readonly #upstream: Upstream;
  readonly #logger: Logger;
  readonly #keyWaitMs: number;
  readonly #settleRetryDelaysMs: readonly number[];
  /**
   * The reservations the writes of this process hold (the others are freed: instances.ts), each
   * with the end of its turn at its key in this process.
   */
  readonly #inFlight = new Map<string, EndTurn>();
  readonly #turns = new KeyTurns();
  /**
   * Per bucket record (the access cache's, replaced when the bucket changes), its quotas under the
   * organisation's storage limits they were worked out from.
   */
  readonly #quotasOfBucket = new WeakMap<
    BucketRecord,
    { readonly organisation: StorageQuota; readonly quotas: readonly ScopeQuota[] }
  >();
  readonly #leases: LeaseBook | null = null;
  readonly #records: RecordQueue<LeasedRecord> | null = null;
  readonly #countRecords: (outcome: QuotaRecordOutcome, count: number) => void;
  /** Retired leases are being released (one release at a time). */
  #releasing = false;

  constructor(
    reservations: StorageReservations,
    uploads: StorageUploadsStore,
    /** The instance reservations are held for (store/instances.ts releases those it leaves). */
    instanceId: string,
    upstream: Upstream,
    logger: Logger,
    options: StorageQuotaOptions = {},
  ) {
    this.#reservations = reservations;
    this.#uploads = uploads;
    this.#instanceId = instanceId;
    this.#upstream = upstream;
    this.#logger = logger;
    this.#keyWaitMs = options.keyWaitMs ?? KEY_WAIT_MS;
    this.#settleRetryDelaysMs = options.settleRetryDelaysMs ?? SETTLE_RETRY_DELAYS_MS;
    const countRecords = options.countRecords ?? (() => undefined);
    this.#countRecords = countRecords;
    if (options.leased !== undefined) {
      const leases = new LeaseBook(options.leased.leases, instanceId, logger);
      this.#leases = leases;
      this.#records = new RecordQueue<LeasedRecord>(options.leased.records, logger, {
        onDoubt: (record) => this.#observeLater(record),
        onWritten: (counted, doubtful) => {
          leases.reached();
          if (counted > 0) countRecords('written', counted);
          if (doubtful > 0) countRecords('in_doubt', doubtful);
        },
        onGivenUp: (count) => countRecords('given_up', count),
        retryDelaysMs: this.#settleRetryDelaysMs,
      });
    }
  }

  /** The reservations the writes of this process hold now, and its leases. */
  inFlight(): string[] {
    return [...this.#inFlight.keys(), ...(this.#leases?.ids() ?? [])];
  }

  /**
   * The database answered this process (its heartbeat): its leases may be used, and those idle or
   * replaced go back.
   */
  databaseReached(): void {
    if (this.#leases === null) return;
    this.#leases.reached();
    this.#leases.retireIdle();
    if (!this.#releasing && this.#leases.retired().length > 0) {
      this.#releasing = true;
      this.#releaseRetired()
        .catch((error: unknown) => {
          this.#logger.warn({ err: error }, 'could not give leased storage room back; trying again');
        })
        .finally(() => {
          this.#releasing = false;
        });
    }
  }

  /** Releases the rows of retired leases, once the records of their uploads are written. */
  async #releaseRetired(): Promise<void> {
    const leases = this.#leases as LeaseBook;
    await this.#records?.flush();
    const ids = leases.retired();
    await this.#reservations.release(ids);
    leases.forget(ids);
  }

  /**
   * Admits nothing more from leases, writes the records waiting and gives the leases back (at
   * shutdown, once the requests are over).
   */
  async close(): Promise<void> {
    if (this.#leases === null || this.#records === null) return;
    this.#leases.close();
    await this.#records.flush();
    await this.#reservations.release(this.#leases.ids());
  }

  /**
   * The quotas the request's bucket is counted under: none when no quota applies. The same list
   * for every request while the cached records stay (leases.ts keys its leases by it).
   */
  quotasOf(stage: Authorised): readonly ScopeQuota[] {
    const bucket = stage.entry?.bucket;
    if (bucket === undefined) return NO_QUOTAS;
    const organisation = stage.organisation.limits.storage;
    if (!quotaApplies(organisation) && !quotaApplies(bucket.quota)) return NO_QUOTAS;
    const known = this.#quotasOfBucket.get(bucket);
    if (known?.organisation === organisation) return known.quotas;
    const quotas = quotasUnder(bucket, organisation);
    this.#quotasOfBucket.set(bucket, { organisation, quotas });
    return quotas;
  }

  /** A forwarded request, accounted when it writes to a counted bucket. */
  forwarded(stage: Planned, send: SendWrite): Promise<void> {
    const quotas = this.quotasOf(stage);
    if (quotas.length === 0 || !isInBucket(stage)) return send();
    switch (stage.operation.name) {
      case 'PutObject':
        return this.#upload(stage, quotas, uploadLength(stage), send);
      case 'UploadPart':
        return this.#part(stage, quotas, uploadLength(stage), send);
      case 'CreateMultipartUpload':
        return this.#creation(stage, quotas, send);
      case 'AbortMultipartUpload':
        return this.#abort(stage, send);
      case 'DeleteObject':
        return this.#deletion(stage, quotas, send);
      default:
        return send();
    }
  }

  /** A browser form upload of `fileLength` bytes. */
  formUpload(stage: Planned, fileLength: number, send: SendWrite): Promise<void> {
    const quotas = this.quotasOf(stage);
    if (quotas.length === 0 || !isInBucket(stage)) return send();
    return this.#upload(stage, quotas, fileLength, send);
  }

  /**
   * CopyObject or UploadPartCopy from a source of `sourceSize` bytes; `sourceStatus` is the
   * store's answer to a HEAD of the source. A counted bucket takes no copy whose size the store
   * did not tell: it is refused as the store answered about its source.
   */
  async copy(
    stage: Planned,
    source: { size: number | null; status: number },
    send: SendWrite,
  ): Promise<void> {
    const quotas = this.quotasOf(stage);
    if (quotas.length === 0 || !isInBucket(stage)) return send();
    const length = copyLength(stage, source.size);
    if (length === null) throw sourceRefusal(source.status);
    return stage.operation.name === 'UploadPartCopy'
      ? this.#part(stage, quotas, length, send)
      : this.#exactUpload(stage, quotas, length, send);
  }

  /** CompleteMultipartUpload: admitted by the size of its parts, recorded before the client hears it. */
  async completion(stage: Planned, send: (quota?: CompletionQuota) => Promise<void>): Promise<void> {
    const quotas = this.quotasOf(stage);
    if (quotas.length === 0 || !isInBucket(stage)) return send();
    const upload = uploadOf(stage);
    const object = objectOf(stage);
    const sentFrom = stampClock();
    let held: Held = { id: null };
    let previous: number | null = null;
    let assembled: number | null = null;
    await this.#holding(
      () => held,
      object,
      () =>
        send({
          admit: async (size) => {
            held = await this.#holdKey(stage, quotas, objectKey(upload.bucket, stage.key), object);
            if (held.id === null) return;
            previous = held.replaced !== undefined ? held.replaced : await this.#sizeOf(stage);
            // Without the store's list of parts, the size is known only once the object exists.
            if (size === null) return;
            assembled = size;
            const change = replacing(size, previous);
            const counted = await this.#uploads.partBytes(upload);
            const grown = { ...change, bytes: change.bytes - counted };
            await this.#grow(stage, held.id, quotas, grown, untouched(object, held));
          },
          beforeAnswer: async (completed) => {
            const id = held.id;
            if (id === null) return;
            if (!completed)
              return this.#record(stage, id, () =>
                this.#reservations.settle(id, NO_CHANGE, untouched(object, held)),
              );
            // Not told (no answer, or none found after the store said it completed): left to the
            // next count of the bucket rather than counted as a deletion.
            const size = assembled ?? (await this.#storedSize(stage).catch(() => undefined)) ?? undefined;
            const change = size === undefined ? NO_CHANGE : replacing(size, previous);
            const kept =
              size === undefined ? untouched(object, held) : keptOf(object, size, this.#stamp(sentFrom));
            return this.#record(stage, id, () => this.#uploads.settleCompletion(id, upload, change, kept));
          },
        }),
    );
  }

  /** DeleteObjects: `send` forwards through an upstream that accounts the deletions. */
  async deletions(stage: Planned, send: (upstream: Upstream) => Promise<void>): Promise<void> {
    const quotas = this.quotasOf(stage);
    if (quotas.length === 0 || !isInBucket(stage)) return send(this.#upstream);
    const scopes = quotas.map((quota) => quota.scope);
    const hold = async (keys: readonly string[]): Promise<KeyHold> => {
      const sentFrom = stampClock();
      const { ids, sizes: before } = await this.#holdKeys(stage, scopes, { bucket: stage.bucket, keys });
      return {
        before,
        settle: (freed, sizes) =>
          this.#record(stage, ids, () =>
            this.#reservations.settle(ids, freed, {
              bucket: stage.bucket,
              sizes,
              stamp: this.#stamp(sentFrom),
            }),
          ),
      };
    };
    await send(new CountedDeletions(this.#upstream, stage.bucket, hold));
  }

  /** PutObject or a form upload of `length` bytes: from a lease when it has room for it. */
  #upload(stage: Counted, quotas: readonly ScopeQuota[], length: number, send: SendWrite): Promise<void> {
    const lease = this.#leases?.admit(quotas, stage.bucket, length) ?? null;
    if (lease === null) return this.#exactUpload(stage, quotas, length, send);
    const upload = new LeasedUpload(
      stage.bucket,
      stage.key,
      lease,
      length,
      this.#instanceId,
      customerKeyOf(stage.headers),
      this.#turns,
    );
    // Most uploads find their key free: taken at once, without the promises of #turnsAt.
    return upload.takeFreeTurn()
      ? this.#sendLeased(upload, send)
      : this.#leasedUploadAfterTurn(stage, upload, send);
  }

  /**
   * PutObject, a form upload or CopyObject of `length` bytes, with its room reserved in the
   * database before it is sent and settled after.
   */
  async #exactUpload(
    stage: Counted,
    quotas: readonly ScopeQuota[],
    length: number,
    send: SendWrite,
  ): Promise<void> {
    const key = objectKey(stage.bucket, stage.key);
    const object = objectOf(stage);
    const sentFrom = stampClock();
    const reserved = await this.#reserve(stage, quotas, { bytes: length, objects: 1 }, key, object);
    // Not now: what the key holds may change before its turn (another write holds it), or, without
    // the sizes kept, it was reserved as a new object, which replacing one may fit (an overwrite, a
    // copy onto itself). Decided once the key is held.
    const fitsAsReserved = 'id' in reserved;
    const held = fitsAsReserved ? reserved : await this.#holdKey(stage, quotas, key, object);
    const id = held.id;
    if (id === null) return send();
    await this.#holding(
      () => held,
      object,
      async () => {
        const replaced = held.replaced !== undefined ? held.replaced : await this.#sizeOf(stage);
        const change = replacing(length, replaced);
        if (!fitsAsReserved) await this.#grow(stage, id, quotas, change, untouched(object, held));
        await send((status) =>
          this.#record(stage, id, () =>
            succeeded(status)
              ? this.#reservations.settle(id, change, keptOf(object, length, this.#stamp(sentFrom)))
              : this.#reservations.settle(id, NO_CHANGE, untouched(object, held)),
          ),
        );
      },
    );
  }

  /** A leased upload whose key another write of this process holds: sent once its turn comes. */
  async #leasedUploadAfterTurn(stage: Counted, upload: LeasedUpload, send: SendWrite): Promise<void> {
    try {
      const [endTurn] = await this.#turnsAt(
        stage,
        upload.bucket,
        [upload.key],
        performance.now() + this.#keyWaitMs,
      );
      upload.tookTurn(endTurn ?? (() => undefined));
    } catch (error) {
      this.#leases?.unadmit(upload.lease, upload.leasedBytes);
      throw error;
    }
    return this.#sendLeased(upload, send);
  }

  /**
   * Sends a leased upload holding its turn, and queues its record once the send is over, however
   * it ended; its turn ends then. Not an async function: the client's answer waits for the send
   * alone, and the record rides on it.
   */
  #sendLeased(upload: LeasedUpload, send: SendWrite): Promise<void> {
    upload.sending();
    const queueRecord = (): void => {
      upload.over();
      (this.#records as RecordQueue<LeasedRecord>).add(upload);
      this.#leases?.recorded(upload.lease);
      upload.endTurn();
    };
    let sent: Promise<void>;
    try {
      // Learns the status only: the client's answer does not wait for the record.
      sent = send((status) => {
        upload.answered(succeeded(status));
        return undefined;
      });
    } catch (error) {
      sent = Promise.reject(error as Error);
    }
    sent.then(queueRecord, queueRecord);
    return sent;
  }

  /**
   * A record of this process changed nothing because another write to its key may have come after
   * it: once the writes' intervals lie apart, the store is asked what the key holds, and that is
   * recorded like a write (an observation), a few times at most.
   */
  #observeLater(record: LeasedRecord): void {
    if (record.observations >= OBSERVATIONS_AT_MOST) {
      this.#countRecords('unresolved', 1);
      this.#logger.warn(
        { bucket: record.bucket },
        'writes to one key from several processes at once left its size in doubt; recount the bucket',
      );
      return;
    }
    setTimeout(
      () => {
        this.#observe(record).catch((error: unknown) => {
          this.#countRecords('unresolved', 1);
          this.#logger.warn(
            { err: error, bucket: record.bucket },
            'could not ask the store what a key holds after writes to it from several processes; recount the bucket',
          );
        });
      },
      OBSERVE_AFTER_MS * 2 ** record.observations,
    ).unref();
  }

  /**
   * Asks the store what the key of `record` holds, holding the turn at the key meanwhile (no write
   * of this process is in flight there), and queues what it found as a record.
   */
  async #observe(record: LeasedRecord): Promise<void> {
    const end = await this.#turns.take(record.bucket, record.key, performance.now() + this.#keyWaitMs);
    if (end === null) return this.#observeLater(observationOf(record, record));
    try {
      const from = stampClock();
      const answer = await askStore(
        this.#upstream,
        { bucket: record.bucket, key: record.key, versionId: null },
        record.customerKey,
      );
      const until = stampClock();
      const size = answer.status === 404 ? null : objectSize(answer);
      if (answer.status !== 404 && size === null)
        throw new Error(`the store answered ${answer.status} to a HEAD of the key`);
      const found = { bytes: size, writer: this.#instanceId, from, until };
      this.#records?.add(observationOf(record, found));
    } finally {
      end();
    }
  }

  /** The stamp of a write of this process sent at `from` and answered now. */
  #stamp(from: number): WriteStamp {
    return { writer: this.#instanceId, from, until: stampClock() };
  }

  /**
   * UploadPart or UploadPartCopy of `length` bytes: room for it beside the parts already counted
   * while it is sent, counted as a part once the store holds it.
   */
  async #part(stage: Counted, quotas: readonly ScopeQuota[], length: number, send: SendWrite): Promise<void> {
    const upload = uploadOf(stage);
    const partNumber = queryValue(stage.query, 'partNumber') ?? '';
    const key = partKey(upload, partNumber);
    const reserved = await this.#reserve(stage, quotas, { bytes: length, objects: 0 }, key);
    // Beside the parts counted it does not fit; replacing a part of the same number it may.
    const fitsBeside = 'id' in reserved;
    const held = fitsBeside ? reserved : await this.#holdKey(stage, quotas, key);
    const id = held.id;
    if (id === null) return send();
    const part = { ...upload, key: stage.key, partNumber: Number(partNumber), bytes: length };
    await this.#holding(
      () => held,
      null,
      async () => {
        if (!fitsBeside) {
          const replaced = Number.isSafeInteger(part.partNumber)
            ? await this.#uploads.partBytes(upload, part.partNumber)
            : 0;
          await this.#grow(stage, id, quotas, { bytes: length - replaced, objects: 0 });
        }
        await send((status) =>
          this.#record(stage, id, () =>
            succeeded(status) ? this.#uploads.settlePart(id, part) : this.#reservations.settle(id, NO_CHANGE),
          ),
        );
      },
    );
  }

  /** A multipart upload whose declared size (x-amz-mp-object-size) does not fit is refused at once. */
  async #creation(stage: Counted, quotas: readonly ScopeQuota[], send: SendWrite): Promise<void> {
    const declared = Number(headerValue(stage.headers, 'x-amz-mp-object-size') ?? '0');
    const size = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
    const exceeded = await this.#reservations.exceeded(quotas, replacing(size, await this.#sizeOf(stage)));
    if (exceeded.length > 0) this.#refuse(stage, exceeded);
    return send();
  }

  /** An aborted upload's parts (or those of one the store no longer knows) stop counting. */
  async #abort(stage: Counted, send: SendWrite): Promise<void> {
    const upload = uploadOf(stage);
    await send(async (status) => {
      if (!succeeded(status) && status !== 404) return;
      await this.#uploads.forget(upload).catch((error: unknown) => {
        this.#logger.warn(
          { err: error, requestId: stage.exchange.id, bucket: upload.bucket },
          'could not stop counting the parts of an aborted upload; the periodic check will',
        );
      });
    });
  }

  /** DeleteObject: what is gone is what the key held before less what it holds after. */
  async #deletion(stage: Counted, quotas: readonly ScopeQuota[], send: SendWrite): Promise<void> {
    const object = objectOf(stage);
    const sentFrom = stampClock();
    const held = await this.#holdKey(stage, quotas, objectKey(stage.bucket, stage.key), object);
    const id = held.id;
    if (id === null) return send();
    await this.#holding(
      () => held,
      object,
      async () => {
        const before = held.replaced !== undefined ? held.replaced : await this.#sizeOf(stage);
        const version = queryValue(stage.query, 'versionId') !== undefined;
        await send((status) =>
          this.#record(stage, id, async () => {
            if (!succeeded(status)) return this.#reservations.settle(id, NO_CHANGE, untouched(object, held));
            // Deleting a version may leave another current (an older one, or one a deleted marker
            // hid); deleting the key leaves nothing. What the store does not tell changes nothing.
            const after = version ? await this.#storedSize(stage) : null;
            if (after === undefined) return this.#reservations.settle(id, NO_CHANGE, untouched(object, held));
            return this.#reservations.settle(
              id,
              replacing(after, before),
              keptOf(object, after, this.#stamp(sentFrom)),
            );
          }),
        );
      },
    );
  }

  /**
   * Runs `write` with the room `held()` holds; a reservation it leaves unsettled (no answer from
   * the store, a refusal, a client gone) is released after it, changing nothing: the size kept of
   * `object` (when the write goes to one) stays in step with the count (storage-objects.ts).
   */
  async #holding(held: () => Held, object: ObjectRef | null, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } finally {
      const id = held().id;
      if (id !== null && this.#inFlight.has(id)) {
        const kept = object === null ? undefined : untouched(object, held());
        await this.#record(null, id, () => this.#reservations.settle(id, NO_CHANGE, kept));
      }
    }
  }

  /**
   * Reserves room for `change` holding `key`, waiting while another write holds it; the scopes over
   * their quota when it does not fit (nothing held then).
   */
  async #reserve(
    stage: Planned,
    quotas: readonly ScopeQuota[],
    change: StorageChange,
    key: WriteKey,
    object?: ObjectRef,
  ): Promise<Held | { exceeded: readonly UsageScope[] }> {
    const deadline = performance.now() + this.#keyWaitMs;
    const id = newId();
    this.#track([id], await this.#turnsAt(stage, key.space, [key.name], deadline));
    try {
      if (object !== undefined) await this.#recordsWritten(object.bucket, [object.key]);
      const ask = () =>
        this.#waitForKey(stage, deadline, () =>
          this.#reservations.reserve(this.#instanceId, quotas, change, key.held, id, object),
        );
      let reservation = await ask();
      // Room this process leased and has not used may be what is missing: given back, asked again.
      if (reservation.outcome === 'over' && (await this.#leases?.giveBack(quotas)) === true)
        reservation = await ask();
      if (reservation.outcome === 'held' && reservation.id !== null)
        return reservation.replaced === undefined ? { id } : { id, replaced: reservation.replaced };
      this.#untrack([id]);
      return reservation.outcome === 'over' ? { exceeded: reservation.exceeded } : { id: null };
    } catch (error) {
      this.#untrack([id]);
      throw error;
    }
  }

  /**
   * Holds `key` with no room reserved (room is added by #grow once the write knows it), with what
   * `object` holds when the sizes kept tell it.
   */
  async #holdKey(
    stage: Planned,
    quotas: readonly ScopeQuota[],
    key: WriteKey,
    object?: ObjectRef,
  ): Promise<Held> {
    const held = await this.#reserve(stage, quotas, NO_CHANGE, key, object);
    // No room asked, no quota exceeded.
    return 'id' in held ? held : { id: null };
  }

  /**
   * Waits for the records this process queued of leased uploads to `keys` of `bucket`: their turns
   * are over, their records perhaps not yet written, and what the keys hold is read from the
   * database next.
   */
  async #recordsWritten(bucket: string, keys: readonly string[]): Promise<void> {
    if (this.#records === null) return;
    const wanted = new Set(keys);
    await this.#records.written((record) => record.bucket === bucket && wanted.has(record.key));
  }

  /** Holds object keys for writes that reserve no room (deletions); their reservation ids. */
  async #holdKeys(
    stage: Planned,
    scopes: readonly UsageScope[],
    objects: { readonly bucket: string; readonly keys: readonly string[] },
  ): Promise<{ ids: string[]; sizes?: Map<string, number | null> }> {
    const deadline = performance.now() + this.#keyWaitMs;
    const keys = objects.keys.map((key) => objectHeldKey(objects.bucket, key));
    const ends = await this.#turnsAt(stage, objects.bucket, objects.keys, deadline);
    try {
      await this.#recordsWritten(objects.bucket, objects.keys);
      const held = await this.#waitForKey(stage, deadline, async () => {
        const hold = await this.#reservations.hold(this.#instanceId, scopes, keys, objects);
        return hold === null ? { outcome: 'busy' as const } : { outcome: 'held' as const, ...hold };
      });
      this.#track(held.ids, ends);
      return held.sizes === undefined ? { ids: held.ids } : { ids: held.ids, sizes: held.sizes };
    } catch (error) {
      for (const end of ends) end();
      throw error;
    }
  }

  /**
   * This process's turns at `names` in `space`, taken in name order (two writes naming the same
   * keys cannot each wait for the other), or 503 SlowDown once `deadline` passed.
   */
  async #turnsAt(
    stage: Planned,
    space: string,
    names: readonly string[],
    deadline: number,
  ): Promise<EndTurn[]> {
    const ends = new Map<string, EndTurn>();
    for (const name of [...new Set(names)].sort()) {
      const end = this.#turns.takeFree(space, name) ?? (await this.#turns.take(space, name, deadline));
      if (end === null) {
        for (const taken of ends.values()) taken();
        throw new S3Error('KeyWriteInProgress');
      }
      ends.set(name, end);
    }
    return names.map((name) => ends.get(name) as EndTurn);
  }

  /** The writes of `ids` are under way, each holding its turn (`ends`, one per id). */
  #track(ids: readonly string[], ends: readonly EndTurn[]): void {
    ids.forEach((id, index) => this.#inFlight.set(id, ends[index] ?? (() => undefined)));
  }

  /** The writes of `ids` are over: their turns end. */
  #untrack(ids: readonly string[]): void {
    for (const id of ids) {
      this.#inFlight.get(id)?.();
      this.#inFlight.delete(id);
    }
    this.#reservations.forgetWrites(ids);
  }

  /**
   * Runs `attempt` until no other write holds its key: polled, each pause twice the last, for at
   * most keyWaitMs (then 503 SlowDown), and no longer than the client waits.
   */
  async #waitForKey<T extends { outcome: string }>(
    stage: Planned,
    deadline: number,
    attempt: () => Promise<T>,
  ): Promise<Exclude<T, { outcome: 'busy' }>> {
    let pause = FIRST_KEY_POLL_MS;
    for (;;) {
      const result = await attempt();
      if (result.outcome !== 'busy') return result as Exclude<T, { outcome: 'busy' }>;
      if (performance.now() + pause > deadline || stage.exchange.response.destroyed)
        throw new S3Error('KeyWriteInProgress');
      await delay(pause);
      pause = Math.min(pause * 2, LONGEST_KEY_POLL_MS);
    }
  }

  /**
   * Adds room for `change` to the reservation `id`, or refuses the write with QuotaExceeded: it is
   * then let go, its key holding what it held (`unchanged`, when the write goes to an object).
   */
  async #grow(
    stage: Planned,
    id: string,
    quotas: readonly ScopeQuota[],
    change: StorageChange,
    unchanged?: KeptSizes,
  ): Promise<void> {
    const exceeded = await this.#reservations.grow(id, quotas, change);
    if (exceeded.length === 0) return;
    await this.#record(stage, id, () => this.#reservations.settle(id, NO_CHANGE, unchanged));
    this.#refuse(stage, exceeded);
  }

  /** QuotaExceeded naming the bucket's quota when it is one of those exceeded, else the organisation's. */
  #refuse(stage: Planned, exceeded: readonly UsageScope[]): never {
    const bucketOver = exceeded.some((scope) => scope.startsWith('bucket:'));
    stage.exchange.limitedBy = bucketOver ? 'bucket_quota' : 'organisation_quota';
    throw new S3Error(bucketOver ? 'BucketQuotaExceeded' : 'OrganisationQuotaExceeded');
  }

  /** The size of the object at the request's key; null when there is none (or the store does not say). */
  async #sizeOf(stage: Counted): Promise<number | null> {
    return (await this.#storedSize(stage)) ?? null;
  }

  /** What the store says the request's key holds: its size, null for nothing, undefined when it does not say. */
  async #storedSize(stage: Counted): Promise<number | null | undefined> {
    const answer = await headObject(
      stage.exchange,
      this.#upstream,
      { bucket: stage.bucket, key: stage.key, versionId: null },
      customerKeyHeaders(stage.headers, 'object'),
    );
    if (answer.status === 404) return null;
    return objectSize(answer) ?? undefined;
  }

  /**
   * Records what a write changed with `settle`, which drops the reservations `ids`. It never fails
   * the request: a database that does not answer now is tried again in the background (settling
   * twice changes nothing); should it never answer, this process stops holding the reservations
   * and frees them at its next heartbeat, and a recount fixes the figures.
   */
  async #record(
    stage: Planned | null,
    ids: string | readonly string[],
    settle: () => Promise<unknown>,
  ): Promise<void> {
    const list = typeof ids === 'string' ? [ids] : ids;
    try {
      await settle();
      this.#untrack(list);
    } catch (error) {
      this.#logger.warn(
        { err: error, requestId: stage?.exchange.id, bucket: stage?.bucket },
        'could not account a write against the storage quota; trying again',
      );
      void this.#retry(stage, list, settle);
    }
  }

  async #retry(stage: Planned | null, ids: readonly string[], settle: () => Promise<unknown>): Promise<void> {
    for (const pause of this.#settleRetryDelaysMs) {
      await delay(pause);
      try {
        await settle();
        this.#untrack(ids);
        return;
      } catch {
        // Tried again after the next pause.
      }
    }
    this.#untrack(ids);
    this.#logger.error(
      { requestId: stage?.exchange.id, bucket: stage?.bucket },
      'could not account a write against the storage quota; its reservation is freed, recount the bucket',
    );
  }
}

/** The refusal of a copy whose source the store would not describe, as it answered the HEAD. */
function sourceRefusal(status: number): S3Error {
  if (status === 403) return new S3Error('BackendAccessDenied');
  if (status >= 500) return new S3Error('ServiceUnavailable');
  return new S3Error('CopySourceSizeUnknown');
}
