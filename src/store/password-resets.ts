import type { Sql } from './database.js';
import { newId } from '../security/ids.js';

/** A one-time password-reset token issued by an owner or admin; stored only as a hash. */
export interface PasswordResetRecord {
  id: string;
  userId: string;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

interface PasswordResetRow {
  id: string;
  user_id: string;
  created_by: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

function toPasswordReset(row: PasswordResetRow): PasswordResetRecord {
  return {
    id: row.id,
    userId: row.user_id,
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
  };
}

export class PasswordResetStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async create(
    reset: { userId: string; tokenHash: string; createdBy: string | null; expiresAt: Date },
    sql: Sql = this.#sql,
  ): Promise<PasswordResetRecord> {
    const [row] = await sql<PasswordResetRow[]>`
      INSERT INTO password_reset_tokens (id, user_id, token_hash, created_by, expires_at)
      VALUES (${newId()}, ${reset.userId}, ${reset.tokenHash}, ${reset.createdBy}, ${reset.expiresAt})
      RETURNING id, user_id, created_by, created_at, expires_at, used_at`;
    return toPasswordReset(row as PasswordResetRow);
  }

  /** The reset of this token when it is neither used nor expired. */
  async findOpenByTokenHash(tokenHash: string, sql: Sql = this.#sql): Promise<PasswordResetRecord | null> {
    const [row] = await sql<PasswordResetRow[]>`
      SELECT id, user_id, created_by, created_at, expires_at, used_at
      FROM password_reset_tokens
      WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > now()`;
    return row ? toPasswordReset(row) : null;
  }

  /** False when it was used meanwhile: a token resets a password once. */
  async markUsed(id: string, sql: Sql = this.#sql): Promise<boolean> {
    const rows = await sql`
      UPDATE password_reset_tokens SET used_at = now() WHERE id = ${id} AND used_at IS NULL RETURNING 1`;
    return rows.length > 0;
  }

  /** A new token replaces the user's earlier open ones. */
  async discardOpenForUser(userId: string, sql: Sql = this.#sql): Promise<void> {
    await sql`
      UPDATE password_reset_tokens SET used_at = now() WHERE user_id = ${userId} AND used_at IS NULL`;
  }
}
