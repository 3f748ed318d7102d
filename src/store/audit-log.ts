import type { Sql } from './database.js';

/** One control-plane write: who did what to which target, when and from where. Never holds secrets. */
export interface AuditEntry {
  id: string;
  organisationId: string | null;
  actorUserId: string | null;
  actorEmail: string | null;
  action: string;
  target: string | null;
  sourceAddress: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
}

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'createdAt'>;

interface AuditRow {
  id: string;
  organisation_id: string | null;
  actor_user_id: string | null;
  actor_email: string | null;
  action: string;
  target: string | null;
  source_address: string | null;
  details: Record<string, unknown>;
  created_at: Date;
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: String(row.id),
    organisationId: row.organisation_id,
    actorUserId: row.actor_user_id,
    actorEmail: row.actor_email,
    action: row.action,
    target: row.target,
    sourceAddress: row.source_address,
    details: row.details,
    createdAt: row.created_at,
  };
}

export class AuditLogStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async append(entry: NewAuditEntry, sql: Sql = this.#sql): Promise<void> {
    await sql`
      INSERT INTO audit_log (organisation_id, actor_user_id, actor_email, action, target, source_address, details)
      VALUES (${entry.organisationId}, ${entry.actorUserId}, ${entry.actorEmail}, ${entry.action},
              ${entry.target}, ${entry.sourceAddress}, ${sql.json(entry.details as never)})`;
  }

  /** Newest first; the cursor is the id of the last entry of the previous page. */
  async listForOrganisation(
    organisationId: string,
    options: { limit: number; cursor: string | null },
  ): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
    const rows = await this.#sql<AuditRow[]>`
      SELECT * FROM audit_log
      WHERE organisation_id = ${organisationId}
        ${options.cursor === null ? this.#sql`` : this.#sql`AND id < ${options.cursor}`}
      ORDER BY id DESC
      LIMIT ${options.limit + 1}`;
    const items = rows.slice(0, options.limit).map(toEntry);
    return { items, nextCursor: rows.length > options.limit ? (items.at(-1)?.id ?? null) : null };
  }
}
