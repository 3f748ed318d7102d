import { countOf, type Sql } from './database.js';
import type { InvalidationBus } from './invalidation.js';
import type { OrganisationLimits, OrganisationRecord, RequestRate } from './records.js';
import { newId } from '../security/ids.js';

interface OrganisationRow {
  id: string;
  name: string;
  status: 'active' | 'suspended';
  suspension_reason: string | null;
  suspended_at: Date | null;
  settings: Record<string, unknown>;
  max_bytes: bigint | null;
  max_objects: bigint | null;
  requests_per_second: number | null;
  request_burst: number | null;
  credential_requests_per_second: number | null;
  credential_request_burst: number | null;
  created_at: Date;
  updated_at: Date;
}

function rate(requestsPerSecond: number | null, burst: number | null): RequestRate | null {
  return requestsPerSecond === null ? null : { requestsPerSecond, burst };
}

function toOrganisation(row: OrganisationRow): OrganisationRecord {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    suspensionReason: row.suspension_reason,
    suspendedAt: row.suspended_at,
    settings: row.settings,
    limits: {
      storage: { maxBytes: countOf(row.max_bytes), maxObjects: countOf(row.max_objects) },
      requests: rate(row.requests_per_second, row.request_burst),
      credentialRequests: rate(row.credential_requests_per_second, row.credential_request_burst),
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class OrganisationNameTakenError extends Error {
  constructor(name: string) {
    super(`an organisation named "${name}" exists`);
    this.name = 'OrganisationNameTakenError';
  }
}

export class OrganisationStore {
  readonly #sql: Sql;
  readonly #bus: InvalidationBus;

  constructor(sql: Sql, bus: InvalidationBus) {
    this.#sql = sql;
    this.#bus = bus;
  }

  async create(name: string, sql: Sql = this.#sql): Promise<OrganisationRecord> {
    const rows = await sql<OrganisationRow[]>`
      INSERT INTO organisations (id, name) VALUES (${newId()}, ${name})
      ON CONFLICT DO NOTHING
      RETURNING *`;
    const row = rows[0];
    if (row === undefined) throw new OrganisationNameTakenError(name);
    return toOrganisation(row);
  }

  async find(id: string): Promise<OrganisationRecord | null> {
    const [row] = await this.#sql<OrganisationRow[]>`SELECT * FROM organisations WHERE id = ${id}`;
    return row ? toOrganisation(row) : null;
  }

  /** The organisation, its row locked until `tx` ends: its limits cannot change meanwhile. */
  async lockForUpdate(id: string, tx: Sql): Promise<OrganisationRecord | null> {
    const [row] = await tx<OrganisationRow[]>`SELECT * FROM organisations WHERE id = ${id} FOR UPDATE`;
    return row ? toOrganisation(row) : null;
  }

  async findByName(name: string, sql: Sql = this.#sql): Promise<OrganisationRecord | null> {
    const [row] = await sql<
      OrganisationRow[]
    >`SELECT * FROM organisations WHERE lower(name) = lower(${name})`;
    return row ? toOrganisation(row) : null;
  }

  async list(options: { limit: number; cursor: string | null }) {
    const rows = await this.#sql<OrganisationRow[]>`
      SELECT * FROM organisations
      ${options.cursor === null ? this.#sql`` : this.#sql`WHERE id > ${options.cursor}`}
      ORDER BY id
      LIMIT ${options.limit + 1}`;
    const items = rows.slice(0, options.limit).map(toOrganisation);
    return { items, nextCursor: rows.length > options.limit ? (items.at(-1)?.id ?? null) : null };
  }

  /** With `tx`: in the caller's transaction, unpublished (the caller publishes after commit). */
  async updateSettings(
    id: string,
    changes: { name?: string; settings?: Record<string, unknown> },
    tx?: Sql,
  ): Promise<OrganisationRecord | null> {
    const sql = tx ?? this.#sql;
    try {
      const [row] = await sql<OrganisationRow[]>`
        UPDATE organisations SET
          name = ${changes.name ?? sql`name`},
          settings = ${changes.settings === undefined ? sql`settings` : sql.json(changes.settings as never)},
          updated_at = now()
        WHERE id = ${id}
        RETURNING *`;
      if (tx === undefined) await this.#bus.publish('organisation', id);
      return row ? toOrganisation(row) : null;
    } catch (error) {
      if ((error as { code?: string }).code === '23505')
        throw new OrganisationNameTakenError(changes.name ?? '');
      throw error;
    }
  }

  /** Replaces the organisation's limits. With `tx`: in the caller's transaction, unpublished. */
  async setLimits(id: string, limits: OrganisationLimits, tx?: Sql): Promise<OrganisationRecord | null> {
    const [row] = await (tx ?? this.#sql)<OrganisationRow[]>`
      UPDATE organisations SET
        max_bytes = ${limits.storage.maxBytes},
        max_objects = ${limits.storage.maxObjects},
        requests_per_second = ${limits.requests?.requestsPerSecond ?? null},
        request_burst = ${limits.requests?.burst ?? null},
        credential_requests_per_second = ${limits.credentialRequests?.requestsPerSecond ?? null},
        credential_request_burst = ${limits.credentialRequests?.burst ?? null},
        updated_at = now()
      WHERE id = ${id}
      RETURNING *`;
    if (tx === undefined) await this.#bus.publish('organisation', id);
    return row ? toOrganisation(row) : null;
  }

  /**
   * Suspension refuses every storage request of the organisation; nothing is deleted.
   * With `tx`: in the caller's transaction, unpublished (the caller publishes after commit).
   */
  async suspend(id: string, reason: string, tx?: Sql): Promise<OrganisationRecord | null> {
    const [row] = await (tx ?? this.#sql)<OrganisationRow[]>`
      UPDATE organisations SET status = 'suspended', suspension_reason = ${reason}, suspended_at = now(), updated_at = now()
      WHERE id = ${id}
      RETURNING *`;
    if (tx === undefined) await this.#bus.publish('organisation', id);
    return row ? toOrganisation(row) : null;
  }

  /** With `tx`: in the caller's transaction, unpublished (the caller publishes after commit). */
  async reinstate(id: string, tx?: Sql): Promise<OrganisationRecord | null> {
    const [row] = await (tx ?? this.#sql)<OrganisationRow[]>`
      UPDATE organisations SET status = 'active', suspension_reason = NULL, suspended_at = NULL, updated_at = now()
      WHERE id = ${id}
      RETURNING *`;
    if (tx === undefined) await this.#bus.publish('organisation', id);
    return row ? toOrganisation(row) : null;
  }
}
