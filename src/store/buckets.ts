import { countOf, type Sql } from './database.js';
import type { InvalidationBus } from './invalidation.js';
import type { BucketRecord, CorsRule, CorsRuleSet, StorageQuota } from './records.js';

interface BucketRow {
  name: string;
  organisation_id: string;
  public: boolean;
  max_bytes: bigint | null;
  max_objects: bigint | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

function toBucket(row: BucketRow): BucketRecord {
  return {
    name: row.name,
    organisationId: row.organisation_id,
    public: row.public,
    quota: { maxBytes: countOf(row.max_bytes), maxObjects: countOf(row.max_objects) },
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class BucketNameTakenError extends Error {
  constructor(name: string) {
    super(`bucket name "${name}" is taken`);
    this.name = 'BucketNameTakenError';
  }
}

/** Bucket records and their CORS rule sets; bucket names are global across organisations. */
export class BucketStore {
  readonly #sql: Sql;
  readonly #bus: InvalidationBus;

  constructor(sql: Sql, bus: InvalidationBus) {
    this.#sql = sql;
    this.#bus = bus;
  }

  /** With `tx`: in the caller's transaction, unpublished (the caller publishes after commit). */
  async create(
    bucket: { name: string; organisationId: string; public: boolean; createdBy: string | null },
    tx?: Sql,
  ) {
    const rows = await (tx ?? this.#sql)<BucketRow[]>`
      INSERT INTO buckets (name, organisation_id, public, created_by)
      VALUES (${bucket.name}, ${bucket.organisationId}, ${bucket.public}, ${bucket.createdBy})
      ON CONFLICT (name) DO NOTHING
      RETURNING *`;
    const row = rows[0];
    if (row === undefined) throw new BucketNameTakenError(bucket.name);
    if (tx === undefined) await this.#bus.publish('bucket', bucket.name);
    return toBucket(row);
  }

  async find(name: string): Promise<BucketRecord | null> {
    const [row] = await this.#sql<BucketRow[]>`SELECT * FROM buckets WHERE name = ${name}`;
    return row ? toBucket(row) : null;
  }

  async listForOrganisation(
    organisationId: string,
    options: { limit: number; cursor: string | null },
  ): Promise<{ items: BucketRecord[]; nextCursor: string | null }> {
    const rows = await this.#sql<BucketRow[]>`
      SELECT * FROM buckets
      WHERE organisation_id = ${organisationId}
        ${options.cursor === null ? this.#sql`` : this.#sql`AND name > ${options.cursor}`}
      ORDER BY name
      LIMIT ${options.limit + 1}`;
    const items = rows.slice(0, options.limit).map(toBucket);
    return { items, nextCursor: rows.length > options.limit ? (items.at(-1)?.name ?? null) : null };
  }

  /** Every bucket of the organisation, for the storage endpoint's ListBuckets. */
  async allForOrganisation(organisationId: string, sql: Sql = this.#sql): Promise<BucketRecord[]> {
    const rows = await sql<BucketRow[]>`
      SELECT * FROM buckets WHERE organisation_id = ${organisationId} ORDER BY name`;
    return rows.map(toBucket);
  }

  /** With `tx`: in the caller's transaction, unpublished (the caller publishes after commit). */
  async setPublic(name: string, isPublic: boolean, tx?: Sql): Promise<BucketRecord | null> {
    const [row] = await (tx ?? this.#sql)<BucketRow[]>`
      UPDATE buckets SET public = ${isPublic}, updated_at = now() WHERE name = ${name} RETURNING *`;
    if (tx === undefined) await this.#bus.publish('bucket', name);
    return row ? toBucket(row) : null;
  }

  /** With `tx`: in the caller's transaction, unpublished (the caller publishes after commit). */
  async setQuota(name: string, quota: StorageQuota, tx?: Sql): Promise<BucketRecord | null> {
    const [row] = await (tx ?? this.#sql)<BucketRow[]>`
      UPDATE buckets SET max_bytes = ${quota.maxBytes}, max_objects = ${quota.maxObjects}, updated_at = now()
      WHERE name = ${name} RETURNING *`;
    if (tx === undefined) await this.#bus.publish('bucket', name);
    return row ? toBucket(row) : null;
  }

  /** With `tx`: in the caller's transaction, unpublished (the caller publishes after commit). */
  async delete(name: string, tx?: Sql): Promise<boolean> {
    const rows = await (tx ?? this.#sql)`DELETE FROM buckets WHERE name = ${name} RETURNING 1`;
    if (tx === undefined) await this.#bus.publish('bucket', name);
    return rows.length > 0;
  }

  async findCors(bucket: string): Promise<CorsRuleSet | null> {
    const [row] = await this.#sql<{ bucket: string; rules: CorsRule[]; updated_at: Date }[]>`
      SELECT bucket, rules, updated_at FROM cors_rule_sets WHERE bucket = ${bucket}`;
    return row ? { bucket: row.bucket, rules: row.rules, updatedAt: row.updated_at } : null;
  }

  /** With `tx`: in the caller's transaction, unpublished (the caller publishes after commit). */
  async putCors(bucket: string, rules: CorsRule[], updatedBy: string | null, tx?: Sql): Promise<CorsRuleSet> {
    const sql = tx ?? this.#sql;
    const [row] = await sql<{ bucket: string; rules: CorsRule[]; updated_at: Date }[]>`
      INSERT INTO cors_rule_sets (bucket, rules, updated_by) VALUES (${bucket}, ${sql.json(rules as never)}, ${updatedBy})
      ON CONFLICT (bucket) DO UPDATE SET rules = EXCLUDED.rules, updated_by = EXCLUDED.updated_by, updated_at = now()
      RETURNING bucket, rules, updated_at`;
    if (tx === undefined) await this.#bus.publish('bucket', bucket);
    const saved = row as { bucket: string; rules: CorsRule[]; updated_at: Date };
    return { bucket: saved.bucket, rules: saved.rules, updatedAt: saved.updated_at };
  }

  /** With `tx`: in the caller's transaction, unpublished (the caller publishes after commit). */
  async deleteCors(bucket: string, tx?: Sql): Promise<boolean> {
    const rows = await (tx ?? this.#sql)`DELETE FROM cors_rule_sets WHERE bucket = ${bucket} RETURNING 1`;
    if (tx === undefined) await this.#bus.publish('bucket', bucket);
    return rows.length > 0;
  }
}
