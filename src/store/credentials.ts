import type { CredentialScope } from '../access/scope.js';
import type { SecretBox } from '../security/secret-box.js';
import type { Sql } from './database.js';
import type { InvalidationBus } from './invalidation.js';
import type { CredentialRecord } from './records.js';

interface CredentialRow {
  access_key_id: string;
  organisation_id: string;
  name: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_valid_until: Date | null;
  scope: CredentialScope;
  expires_at: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
}

export interface NewCredential {
  accessKeyId: string;
  organisationId: string;
  name: string;
  secret: string;
  scope: CredentialScope;
  expiresAt: Date | null;
  createdBy: string | null;
}

export interface CredentialPage {
  items: CredentialRecord[];
  nextCursor: string | null;
}

/**
 * Storage credentials. Secrets are sealed with the master key before they reach the database; every
 * change is published so that the storage endpoint's caches drop the old record at once.
 */
export class CredentialStore {
  readonly #sql: Sql;
  readonly #box: SecretBox;
  readonly #bus: InvalidationBus;

  constructor(sql: Sql, box: SecretBox, bus: InvalidationBus) {
    this.#sql = sql;
    this.#box = box;
    this.#bus = bus;
  }

  /** With `tx`: in the caller's transaction, unpublished (the caller publishes after commit). */
  async create(credential: NewCredential, tx?: Sql): Promise<CredentialRecord> {
    const sql = tx ?? this.#sql;
    const sealed = this.#box.seal(credential.secret, credential.accessKeyId);
    const [row] = await sql<CredentialRow[]>`
      INSERT INTO credentials (access_key_id, organisation_id, name, secret_ciphertext, scope, expires_at, created_by)
      VALUES (${credential.accessKeyId}, ${credential.organisationId}, ${credential.name}, ${sealed},
              ${sql.json(credential.scope as never)}, ${credential.expiresAt}, ${credential.createdBy})
      RETURNING *`;
    // A lookup of this id before it existed may be cached as "unknown".
    if (tx === undefined) await this.#bus.publish('credential', credential.accessKeyId);
    return this.#toRecord(row as CredentialRow);
  }

  async find(accessKeyId: string): Promise<CredentialRecord | null> {
    const [row] = await this.#sql<
      CredentialRow[]
    >`SELECT * FROM credentials WHERE access_key_id = ${accessKeyId}`;
    return row ? this.#toRecord(row) : null;
  }

  /** Newest first; the cursor is the last id of the previous page. */
  async listForOrganisation(
    organisationId: string,
    options: { limit: number; cursor: string | null; createdBy?: string },
  ): Promise<CredentialPage> {
    const rows = await this.#sql<CredentialRow[]>`
      SELECT * FROM credentials
      WHERE organisation_id = ${organisationId}
        ${options.createdBy === undefined ? this.#sql`` : this.#sql`AND created_by = ${options.createdBy}`}
        ${options.cursor === null ? this.#sql`` : this.#sql`AND access_key_id > ${options.cursor}`}
      ORDER BY access_key_id
      LIMIT ${options.limit + 1}`;
    const items = rows.slice(0, options.limit).map((row) => this.#toRecord(row));
    return { items, nextCursor: rows.length > options.limit ? (items.at(-1)?.accessKeyId ?? null) : null };
  }

  /** With `tx`: in the caller's transaction, unpublished (the caller publishes after commit). */
  async update(
    accessKeyId: string,
    changes: { name?: string; expiresAt?: Date | null; scope?: CredentialScope },
    tx?: Sql,
  ): Promise<CredentialRecord | null> {
    const sql = tx ?? this.#sql;
    const [row] = await sql<CredentialRow[]>`
      UPDATE credentials SET
        name = ${changes.name ?? sql`name`},
        expires_at = ${changes.expiresAt === undefined ? sql`expires_at` : changes.expiresAt},
        scope = ${changes.scope === undefined ? sql`scope` : sql.json(changes.scope as never)},
        updated_at = now()
      WHERE access_key_id = ${accessKeyId}
      RETURNING *`;
    if (tx === undefined) await this.#bus.publish('credential', accessKeyId);
    return row ? this.#toRecord(row) : null;
  }

  /**
   * Replaces the secret; the old one keeps verifying until `previousValidUntil` (null: not at all).
   * With `tx`: in the caller's transaction, unpublished (the caller publishes after commit).
   */
  async rotate(
    accessKeyId: string,
    newSecret: string,
    previousValidUntil: Date | null,
    tx?: Sql,
  ): Promise<CredentialRecord | null> {
    const sql = tx ?? this.#sql;
    const sealed = this.#box.seal(newSecret, accessKeyId);
    const [row] = await sql<CredentialRow[]>`
      UPDATE credentials SET
        previous_secret_ciphertext = ${previousValidUntil === null ? null : sql`secret_ciphertext`},
        previous_secret_valid_until = ${previousValidUntil},
        secret_ciphertext = ${sealed},
        updated_at = now()
      WHERE access_key_id = ${accessKeyId}
      RETURNING *`;
    if (tx === undefined) await this.#bus.publish('credential', accessKeyId);
    return row ? this.#toRecord(row) : null;
  }

  /**
   * Revocation: the id no longer exists in records.
   * With `tx`: in the caller's transaction, unpublished (the caller publishes after commit).
   */
  async delete(accessKeyId: string, tx?: Sql): Promise<boolean> {
    const sql = tx ?? this.#sql;
    const rows = await sql`DELETE FROM credentials WHERE access_key_id = ${accessKeyId} RETURNING 1`;
    if (tx === undefined) await this.#bus.publish('credential', accessKeyId);
    return rows.length > 0;
  }

  /** Best effort: called at most about once a minute per key by the storage endpoint. */
  async touchLastUsed(accessKeyIds: string[], at: Date): Promise<void> {
    if (accessKeyIds.length === 0) return;
    await this.#sql`UPDATE credentials SET last_used_at = ${at} WHERE access_key_id = ANY(${accessKeyIds})`;
  }

  #toRecord(row: CredentialRow): CredentialRecord {
    const previousValid =
      row.previous_secret_ciphertext !== null &&
      row.previous_secret_valid_until !== null &&
      row.previous_secret_valid_until.getTime() > Date.now();
    return {
      accessKeyId: row.access_key_id,
      organisationId: row.organisation_id,
      name: row.name,
      secret: this.#box.open(row.secret_ciphertext, row.access_key_id),
      previousSecret: previousValid
        ? this.#box.open(row.previous_secret_ciphertext as string, row.access_key_id)
        : null,
      previousSecretValidUntil: previousValid ? row.previous_secret_valid_until : null,
      scope: row.scope,
      expiresAt: row.expires_at,
      createdBy: row.created_by,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      lastUsedAt: row.last_used_at,
    };
  }
}
