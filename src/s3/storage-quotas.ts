/**
 * Storage quotas around the writes the storage endpoint forwards. A bucket is counted while a
 * quota applies to it (its own, or its organisation's); writes to any other bucket pass straight
 * through, at the cost of two property reads.
 *
 * For a counted bucket, an upload is refused with 403 QuotaExceeded before a byte of its body is
 * read (and before `100 Continue`) when it would not fit: PutObject and form uploads by their
 * length (the decoded length of an aws-chunked body), copies by the source's size, multipart
 * uploads at creation (by x-amz-mp-object-size when the client declares it), at each part, and at
 * completion (by the sizes of the parts the store holds). Room is reserved in the database for
 * the upload's whole transfer (store/storage-usage.ts), so two uploads cannot both pass a check
 * that only one of them fits, on any instance.
 *
 * What is stored is accounted from what the store holds once it answered: the size written, less
 * the size of the object it replaced (a HEAD of the key before the write tells it: the one extra
 * request the quota costs, and only in counted buckets); a deletion subtracts the object's size.
 * Parts of an upload not yet completed are not counted. Writes that name a version id are not
 * accounted (versioning is the store's own setting; the quota counts current objects).
 */
import { headerValue } from '../protocol/headers.js';
import { S3Error } from '../protocol/errors.js';
import type { Logger } from '../observability/logger.js';
import {
  bucketScope,
  NO_CHANGE,
  organisationScope,
  type ScopeQuota,
  type StorageChange,
  type StorageUsageStore,
  type UsageScope,
} from '../store/storage-usage.js';
import type { Authorised, Planned } from './stages.js';
import { announcesBody } from './upstream/body.js';
import { CountedDeletions } from './upstream/counted-deletions.js';
import type { CompletionQuota } from './upstream/completion.js';
import { headObject } from './upstream/probe.js';
import type { Upstream } from './upstream/upstream.js';

/** What an upload holds in the database while it is under way. */
interface Held {
  readonly id: string | null;
  readonly scopes: readonly UsageScope[];
  readonly change: StorageChange;
}

/**
 * Sends a write; `beforeAnswer`, when given, is to run with the store's status before the client
 * hears it (a write that records nothing gives none, and its answer is not held up).
 */
export type SendWrite = (beforeAnswer?: (status: number) => Promise<void>) => Promise<void>;

/** The SSE-C key headers of the request, which a HEAD of an SSE-C object needs. */
function customerKeyHeaders(stage: Planned): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name in stage.headers) {
    if (!name.startsWith('x-amz-server-side-encryption-customer-')) continue;
    const value = headerValue(stage.headers, name);
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

/** The length of the body the store receives, as forward.ts sends it. */
function uploadLength(stage: Planned): number {
  if (!announcesBody(stage.exchange.headers)) return 0;
  if (stage.body.decodedLength === undefined) throw new S3Error('MissingContentLength');
  return stage.body.decodedLength;
}

/** The length a copy reads: its source range (UploadPartCopy), else the whole source. */
function copyLength(stage: Planned, sourceSize: number | null): number | null {
  const range = /^bytes=(\d+)-(\d+)$/.exec(headerValue(stage.headers, 'x-amz-copy-source-range') ?? '');
  if (range !== null) return Number(range[2]) - Number(range[1]) + 1;
  return sourceSize;
}

/** What writing `size` bytes over an object of `previous` bytes (null: none) changes. */
function replacing(size: number, previous: number | null): StorageChange {
  return { bytes: size - (previous ?? 0), objects: previous === null ? 1 : 0 };
}

function hasVersionId(stage: Planned): boolean {
  return stage.query.some((parameter) => parameter.name === 'versionId');
}

const succeeded = (status: number): boolean => status < 300;

export class StorageQuotas {
  constructor(
    readonly usage: StorageUsageStore,
    /** The instance reservations are held for (store/instances.ts releases those it leaves). */
    readonly instanceId: string,
    readonly upstream: Upstream,
    readonly logger: Logger,
  ) {}

  /** The quotas the request's bucket is counted under: none when no quota applies. */
  quotasOf(stage: Authorised): ScopeQuota[] {
    const bucket = stage.entry?.bucket;
    if (bucket === undefined) return [];
    const organisation = stage.organisation.limits.storage;
    const organisationCounted = organisation.maxBytes !== null || organisation.maxObjects !== null;
    if (!organisationCounted && bucket.quota.maxBytes === null && bucket.quota.maxObjects === null) return [];
    const quotas: ScopeQuota[] = [{ scope: bucketScope(bucket.name), ...bucket.quota }];
    if (organisationCounted)
      quotas.push({ scope: organisationScope(bucket.organisationId), ...organisation });
    return quotas;
  }

  /** A forwarded request, accounted when it writes to a counted bucket. */
  forwarded(stage: Planned, send: SendWrite): Promise<void> {
    const quotas = this.quotasOf(stage);
    if (quotas.length === 0) return send();
    switch (stage.operation.name) {
      case 'PutObject':
        return this.#upload(stage, quotas, uploadLength(stage), send);
      case 'UploadPart':
        return this.#part(stage, quotas, uploadLength(stage), send);
      case 'CreateMultipartUpload':
        return this.#creation(stage, quotas, send);
      case 'DeleteObject':
        return this.#deletion(stage, quotas, send);
      default:
        return send();
    }
  }

  /** A browser form upload of `fileLength` bytes. */
  formUpload(stage: Planned, fileLength: number, send: SendWrite): Promise<void> {
    const quotas = this.quotasOf(stage);
    if (quotas.length === 0) return send();
    return this.#upload(stage, quotas, fileLength, send);
  }

  /** CopyObject or UploadPartCopy from a source of `sourceSize` bytes (null: the store did not say). */
  copy(stage: Planned, sourceSize: number | null, send: SendWrite): Promise<void> {
    const quotas = this.quotasOf(stage);
    const length = copyLength(stage, sourceSize);
    if (quotas.length === 0 || length === null) return send();
    return stage.operation.name === 'UploadPartCopy'
      ? this.#part(stage, quotas, length, send)
      : this.#upload(stage, quotas, length, send);
  }

  /** CompleteMultipartUpload: admitted by the size of its parts, recorded before the client hears it. */
  async completion(stage: Planned, send: (quota?: CompletionQuota) => Promise<void>): Promise<void> {
    const quotas = this.quotasOf(stage);
    if (quotas.length === 0) return send();
    const scopes = quotas.map((quota) => quota.scope);
    let held: Held | null = null;
    let previous: number | null = null;
    let sizeKnown = true;
    let recorded = false;
    await this.#releasing(
      () => (recorded || held === null ? null : held),
      () =>
        send({
          admit: async (size) => {
            previous = await this.#previousSize(stage);
            // Without the store's list of parts, the size is known only once the object exists.
            sizeKnown = size !== null;
            held =
              size === null
                ? { id: null, scopes, change: NO_CHANGE }
                : await this.#reserve(stage, quotas, replacing(size, previous));
          },
          beforeAnswer: async (completed) => {
            const reserved = held;
            if (reserved === null) return;
            recorded = true;
            let change = completed ? reserved.change : NO_CHANGE;
            if (completed && !sizeKnown) change = await this.#assembled(stage, previous);
            await this.#settle(stage, reserved, change);
          },
        }),
    );
  }

  /** DeleteObjects: `send` forwards through an upstream that accounts the deletions. */
  async deletions(stage: Planned, send: (upstream: Upstream) => Promise<void>): Promise<void> {
    const quotas = this.quotasOf(stage);
    if (quotas.length === 0 || hasVersionId(stage)) return send(this.upstream);
    const scopes = quotas.map((quota) => quota.scope);
    await send(
      new CountedDeletions(this.upstream, stage.bucket as string, (freed) =>
        this.#settle(stage, { id: null, scopes, change: NO_CHANGE }, freed),
      ),
    );
  }

  async #upload(
    stage: Planned,
    quotas: readonly ScopeQuota[],
    length: number,
    send: SendWrite,
  ): Promise<void> {
    if (hasVersionId(stage)) return send();
    const change = replacing(length, await this.#previousSize(stage));
    await this.#holding(stage, await this.#reserve(stage, quotas, change), send);
  }

  /** A part takes room while it is transferred; it is counted once its upload completes. */
  async #part(stage: Planned, quotas: readonly ScopeQuota[], length: number, send: SendWrite): Promise<void> {
    const held = await this.#reserve(stage, quotas, { bytes: length, objects: 0 });
    await this.#holding(stage, { ...held, change: NO_CHANGE }, send);
  }

  /** A multipart upload whose declared size (x-amz-mp-object-size) does not fit is refused at once. */
  async #creation(stage: Planned, quotas: readonly ScopeQuota[], send: SendWrite): Promise<void> {
    const declared = Number(headerValue(stage.headers, 'x-amz-mp-object-size') ?? '0');
    const size = Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
    const exceeded = await this.usage.exceeded(quotas, replacing(size, await this.#previousSize(stage)));
    if (exceeded.length > 0) this.#refuse(stage, exceeded);
    return send();
  }

  async #deletion(stage: Planned, quotas: readonly ScopeQuota[], send: SendWrite): Promise<void> {
    if (hasVersionId(stage)) return send();
    const previous = await this.#previousSize(stage);
    if (previous === null) return send();
    const held = { id: null, scopes: quotas.map((quota) => quota.scope), change: NO_CHANGE };
    await send((status) =>
      this.#settle(stage, held, succeeded(status) ? { bytes: -previous, objects: -1 } : NO_CHANGE),
    );
  }

  /** Sends with `held` reserved; the store's answer settles it, and a write that got none releases it. */
  async #holding(stage: Planned, held: Held, send: SendWrite): Promise<void> {
    let recorded = false;
    await this.#releasing(
      () => (recorded ? null : held),
      () =>
        send((status) => {
          recorded = true;
          return this.#settle(stage, held, succeeded(status) ? held.change : NO_CHANGE);
        }),
    );
  }

  /** Runs `write`; a reservation it leaves unsettled (no answer from the store) is released after it. */
  async #releasing(unsettled: () => Held | null, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } finally {
      const held = unsettled();
      if (held !== null && held.id !== null) await this.#settle(null, held, NO_CHANGE);
    }
  }

  async #reserve(stage: Planned, quotas: readonly ScopeQuota[], change: StorageChange): Promise<Held> {
    const reservation = await this.usage.reserve(this.instanceId, quotas, change);
    if (!reservation.ok) this.#refuse(stage, reservation.exceeded);
    return { id: reservation.id, scopes: reservation.scopes, change };
  }

  /** QuotaExceeded naming the bucket's quota when it is one of those exceeded, else the organisation's. */
  #refuse(stage: Planned, exceeded: readonly UsageScope[]): never {
    const bucketOver = exceeded.some((scope) => scope.startsWith('bucket:'));
    stage.exchange.limitedBy = bucketOver ? 'bucket_quota' : 'organisation_quota';
    throw new S3Error(bucketOver ? 'BucketQuotaExceeded' : 'OrganisationQuotaExceeded');
  }

  /** The size of the object the write replaces; null when there is none (or the store does not say). */
  async #previousSize(stage: Planned): Promise<number | null> {
    const answer = await headObject(
      stage.exchange,
      this.upstream,
      { bucket: stage.bucket as string, key: stage.key, versionId: null },
      customerKeyHeaders(stage),
    );
    const length = Number(answer.headers['content-length']);
    return answer.status === 200 && Number.isSafeInteger(length) ? length : null;
  }

  /** What a completion whose size was unknown changed: the new object's size, from a HEAD of it. */
  async #assembled(stage: Planned, previous: number | null): Promise<StorageChange> {
    const size = await this.#previousSize(stage).catch(() => null);
    return size === null ? NO_CHANGE : replacing(size, previous);
  }

  /**
   * Records what a write changed. It never fails the request: a database that does not answer
   * now is logged (the reservation goes with its instance, a recount fixes the figures).
   */
  async #settle(stage: Planned | null, held: Held, change: StorageChange): Promise<void> {
    try {
      await this.usage.settle(held.id, held.scopes, change);
    } catch (error) {
      this.logger.warn(
        { err: error, requestId: stage?.exchange.id, bucket: stage?.bucket },
        'could not account a write against the storage quota; recount the bucket',
      );
    }
  }
}
