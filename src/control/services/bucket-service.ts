import { BackendError } from '../../backend/object-store.js';
import { BucketNameTakenError } from '../../store/buckets.js';
import type { Sql } from '../../store/database.js';
import type { BucketRecord, StorageQuota } from '../../store/records.js';
import { requireManager, requireMember, type Caller, type Member } from '../auth/caller.js';
import type { ControlDependencies } from '../dependencies.js';
import type {
  BucketPage,
  BucketView,
  CorsRules,
  CorsRulesUpdate,
  CreateBucketRequest,
  DeleteObjectsResponse,
  ObjectListingView,
  UpdateBucketRequest,
} from '../models/buckets.js';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor, toPage } from '../pagination.js';
import { invalidField, ProblemError, validationProblem } from '../problems.js';
import { bucketNameProblem, objectKeyProblem } from '../../protocol/limits.js';
import { validateCorsRules } from './bucket-rules.js';
import { updatedBucketQuota } from './limit-rules.js';
import type { CountingChange, StorageCounting } from './storage-counting.js';
import { inOneTransaction } from '../../store/transaction.js';
import { bucketListItem, bucketView } from './views.js';

/** Buckets of the caller's organisation, their CORS rules and objects. */
export class BucketService {
  readonly #deps: ControlDependencies;
  readonly #counting: StorageCounting;

  constructor(deps: ControlDependencies, counting: StorageCounting) {
    this.#deps = deps;
    this.#counting = counting;
  }

  async list(caller: Caller, options: { limit?: number; cursor?: string }): Promise<BucketPage> {
    const member = requireMember(caller);
    const page = await this.#deps.context.store.buckets.listForOrganisation(member.organisationId, {
      limit: options.limit ?? DEFAULT_PAGE_SIZE,
      cursor: decodeCursor(options.cursor, (position) => bucketNameProblem(position) === null),
    });
    return toPage(page, bucketListItem);
  }

  /** Names are global: one taken by anyone (in records or on the backend) is a conflict. */
  async create(caller: Caller, request: CreateBucketRequest): Promise<BucketView> {
    const member = requireManager(caller);
    const problem = bucketNameProblem(request.name);
    if (problem !== null) throw invalidField('name', problem);
    await this.#requireActive(member, 'no buckets can be created');
    const { store, backend } = this.#deps.context;
    if ((await store.buckets.find(request.name)) !== null) throw nameTaken(request.name);
    await backend.createBucket(request.name).catch((error: unknown) => {
      if (error instanceof BackendError && error.kind === 'bucket-exists') throw nameTaken(request.name);
      throw error;
    });
    // The object store is no party to the transaction: the record and its audit entry are.
    const bucket = await inOneTransaction(store, async (tx, changed) => {
      const bucket = await store.buckets.create(
        {
          name: request.name,
          organisationId: member.organisationId,
          public: request.public ?? false,
          createdBy: member.userId,
        },
        tx,
      );
      changed('bucket', bucket.name);
      // Under an organisation quota every bucket is counted, this one from empty.
      await store.storageUsage.startEmptyBucket(member.organisationId, bucket.name, tx);
      await this.#audit(member, 'bucket.create', bucket.name, { public: bucket.public }, tx);
      return bucket;
    }).catch(async (error: unknown) => {
      // Someone else's record won the name: whatever is on the object store is theirs now.
      if (error instanceof BucketNameTakenError) throw nameTaken(request.name);
      // Nothing records the bucket just made (empty): it goes again, so the name is not lost.
      await backend.deleteBucket(request.name).catch((cleanup: unknown) => {
        this.#deps.context.logger.warn(
          { bucket: request.name, err: cleanup },
          'an unrecorded bucket could not be removed from the object store',
        );
      });
      throw error;
    });
    return bucketView(bucket, null);
  }

  async get(caller: Caller, name: string): Promise<BucketView> {
    const bucket = await this.bucketOf(requireMember(caller), name);
    return bucketView(bucket, await this.#deps.context.store.buckets.findCors(bucket.name));
  }

  /** Makes the bucket public or private, and changes its storage quota (within the organisation's). */
  async update(caller: Caller, name: string, request: UpdateBucketRequest): Promise<BucketView> {
    const member = requireManager(caller);
    const bucket = await this.bucketOf(member, name);
    if (request.public === undefined && request.quota === undefined) {
      throw invalidField('public', 'give public, quota or both');
    }
    const { store } = this.#deps.context;
    let quota: StorageQuota | undefined;
    let counting: CountingChange | undefined;
    if (request.quota !== undefined) {
      const organisation = await store.organisations.find(member.organisationId);
      if (organisation === null) throw new ProblemError('no_organisation');
      quota = updatedBucketQuota(bucket.quota, request.quota, organisation.limits.storage);
      counting = await this.#counting.bucketQuotaChange(
        bucket,
        organisation.limits.storage,
        bucket.quota,
        quota,
      );
    }
    const updated = await inOneTransaction(store, async (tx, changed) => {
      let updated: BucketRecord | null = bucket;
      if (request.public !== undefined) updated = await store.buckets.setPublic(name, request.public, tx);
      if (quota !== undefined && request.quota !== undefined) {
        // Checked again against the organisation's quota as it is now, locked until this commits.
        const organisation = await store.organisations.lockForUpdate(member.organisationId, tx);
        if (organisation === null) throw new ProblemError('no_organisation');
        updatedBucketQuota(bucket.quota, request.quota, organisation.limits.storage);
        updated = await store.buckets.setQuota(name, quota, tx);
        await counting?.(tx);
      }
      changed('bucket', name);
      if (updated === null) throw new ProblemError('bucket_not_found');
      await this.#audit(member, 'bucket.update', name, { public: request.public, quota }, tx);
      return updated;
    });
    return bucketView(updated, await store.buckets.findCors(name));
  }

  /** Only an empty bucket goes; a bucket already gone from the backend is dropped from records too. */
  async delete(caller: Caller, name: string): Promise<void> {
    const member = requireManager(caller);
    await this.bucketOf(member, name);
    await this.#requireActive(member, 'its buckets cannot be deleted');
    const { store, backend } = this.#deps.context;
    await backend.deleteBucket(name).catch((error: unknown) => {
      if (error instanceof BackendError && error.kind === 'bucket-not-empty') {
        throw new ProblemError('bucket_not_empty', 'Delete its objects first.');
      }
      if (!(error instanceof BackendError && error.kind === 'no-such-bucket')) throw error;
    });
    // Should this fail, the record stays; deleting again finds the bucket gone and drops it.
    await inOneTransaction(store, async (tx, changed) => {
      await store.storageUsage.forgetBucket(member.organisationId, name, tx);
      await store.buckets.delete(name, tx);
      changed('bucket', name);
      await this.#audit(member, 'bucket.delete', name, {}, tx);
    });
  }

  async cors(caller: Caller, name: string): Promise<CorsRules> {
    const bucket = await this.bucketOf(requireMember(caller), name);
    const cors = await this.#deps.context.store.buckets.findCors(bucket.name);
    return { rules: cors?.rules ?? [] };
  }

  async putCors(caller: Caller, name: string, request: CorsRulesUpdate): Promise<CorsRules> {
    const member = requireManager(caller);
    await this.bucketOf(member, name);
    const { rules, errors } = validateCorsRules(request.rules);
    if (errors.length > 0) {
      throw validationProblem(errors);
    }
    const { store } = this.#deps.context;
    const saved = await inOneTransaction(store, async (tx, changed) => {
      const saved = await store.buckets.putCors(name, rules, member.userId, tx);
      changed('bucket', name);
      await this.#audit(member, 'bucket.cors_put', name, { rules: rules.length }, tx);
      return saved;
    });
    return { rules: saved.rules };
  }

  async deleteCors(caller: Caller, name: string): Promise<void> {
    const member = requireManager(caller);
    await this.bucketOf(member, name);
    const { store } = this.#deps.context;
    await inOneTransaction(store, async (tx, changed) => {
      await store.buckets.deleteCors(name, tx);
      changed('bucket', name);
      await this.#audit(member, 'bucket.cors_delete', name, {}, tx);
    });
  }

  async listObjects(
    caller: Caller,
    name: string,
    options: { prefix?: string; delimiter?: string; cursor?: string; limit?: number },
  ): Promise<ObjectListingView> {
    const member = requireMember(caller);
    await this.bucketOf(member, name);
    await this.#requireActive(member, 'its objects cannot be listed');
    const cursor = decodeCursor(options.cursor) ?? undefined;
    const listing = await this.#deps.context.backend
      .listObjects(name, {
        prefix: options.prefix,
        delimiter: options.delimiter,
        cursor,
        limit: options.limit ?? DEFAULT_PAGE_SIZE,
      })
      .catch((error: unknown) => rethrowRefusedCursor(error, cursor))
      .catch(rethrowMissingBucket);
    return {
      objects: listing.objects,
      commonPrefixes: listing.commonPrefixes,
      nextCursor: encodeCursor(listing.nextCursor),
    };
  }

  async deleteObjects(caller: Caller, name: string, keys: string[]): Promise<DeleteObjectsResponse> {
    const member = requireManager(caller);
    const bucket = await this.bucketOf(member, name);
    const errors = keys.flatMap((key, index) => {
      const problem = objectKeyProblem(key);
      return problem === null ? [] : [{ field: `keys[${index}]`, message: problem }];
    });
    if (errors.length > 0) {
      throw validationProblem(errors);
    }
    await this.#requireActive(member, 'its objects cannot be deleted');
    const unique = [...new Set(keys)];
    const { backend, store } = this.#deps.context;
    const organisation = await store.organisations.find(member.organisationId);
    const results = await this.#counting
      .deletions(bucket, organisation?.limits.storage ?? NO_QUOTA, unique, () =>
        backend.deleteObjects(name, unique),
      )
      .catch(rethrowMissingBucket);
    await this.#audit(member, 'objects.delete', name, {
      requested: unique.length,
      deleted: results.filter((result) => result.deleted).length,
    });
    return { results };
  }

  /** The bucket when it is the organisation's; another organisation's is as absent as a missing one. */
  async bucketOf(member: Member, name: string): Promise<BucketRecord> {
    const bucket =
      bucketNameProblem(name) === null ? await this.#deps.context.store.buckets.find(name) : null;
    if (bucket === null || bucket.organisationId !== member.organisationId) {
      throw new ProblemError('bucket_not_found', `No bucket named "${name}" in your organisation.`);
    }
    return bucket;
  }

  /**
   * A suspended organisation keeps its stored data untouched and out of reach: what would read or
   * change objects or buckets on the object store is refused here as on the storage endpoint.
   * Records (bucket settings, CORS rules, credentials) stay manageable.
   */
  async #requireActive(member: Member, refused: string): Promise<void> {
    const organisation = await this.#deps.context.store.organisations.find(member.organisationId);
    if (organisation?.status === 'suspended') {
      throw new ProblemError(
        'account_suspended',
        `The account is suspended, so ${refused}` +
          (organisation.suspensionReason ? `: ${organisation.suspensionReason}` : '.'),
      );
    }
  }

  async #audit(member: Member, action: string, bucket: string, details: Record<string, unknown>, tx?: Sql) {
    await this.#deps.audit.record(
      member,
      { organisationId: member.organisationId, action, target: bucket, details },
      tx,
    );
  }
}

const NO_QUOTA: StorageQuota = { maxBytes: null, maxObjects: null };

function nameTaken(name: string): ProblemError {
  return new ProblemError('bucket_name_taken', `The bucket name "${name}" is taken; names are global.`);
}

/**
 * Only the object store can tell whether a continuation token is one of its own: it refuses any
 * other with InvalidArgument, which for the caller is a cursor this list never handed out.
 */
function rethrowRefusedCursor(error: unknown, cursor: string | undefined): never {
  if (cursor !== undefined && error instanceof BackendError && error.s3Code === 'InvalidArgument') {
    throw invalidField('cursor', 'is not a cursor this list handed out');
  }
  throw error;
}

function rethrowMissingBucket(error: unknown): never {
  if (error instanceof BackendError && error.kind === 'no-such-bucket') {
    throw new ProblemError('bucket_not_found', 'The bucket no longer exists on the object store.');
  }
  throw error;
}
