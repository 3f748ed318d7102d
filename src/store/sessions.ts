import type { Sql } from './database.js';
import type { Role } from './records.js';
import { newId } from '../security/ids.js';

/** A login: lives until it expires or is ended; its refresh tokens rotate on every use. */
export interface SessionRecord {
  id: string;
  userId: string;
  userAgent: string | null;
  sourceAddress: string | null;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
}

/** Who an access token speaks for, read fresh on every request so role changes and logouts apply at once. */
export interface SessionPrincipalRecord {
  sessionId: string;
  sessionLastUsedAt: Date;
  userId: string;
  email: string;
  name: string;
  platformAdmin: boolean;
  organisationId: string | null;
  role: Role | null;
}

export interface RefreshTokenRecord {
  tokenHash: string;
  sessionId: string;
  usedAt: Date | null;
}

interface SessionRow {
  id: string;
  user_id: string;
  user_agent: string | null;
  source_address: string | null;
  created_at: Date;
  last_used_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

function toSession(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    userAgent: row.user_agent,
    sourceAddress: row.source_address,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    revokedReason: row.revoked_reason,
  };
}

/** Sessions and their refresh tokens (stored only as hashes). */
export class SessionStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async create(
    session: { userId: string; userAgent: string | null; sourceAddress: string | null; expiresAt: Date },
    sql: Sql = this.#sql,
  ): Promise<SessionRecord> {
    const [row] = await sql<SessionRow[]>`
      INSERT INTO sessions (id, user_id, user_agent, source_address, expires_at)
      VALUES (${newId()}, ${session.userId}, ${session.userAgent}, ${session.sourceAddress}, ${session.expiresAt})
      RETURNING *`;
    return toSession(row as SessionRow);
  }

  async find(id: string, sql: Sql = this.#sql): Promise<SessionRecord | null> {
    const [row] = await sql<SessionRow[]>`SELECT * FROM sessions WHERE id = ${id}`;
    return row ? toSession(row) : null;
  }

  /** The session's user and membership, when the session is neither ended nor expired. */
  async findActivePrincipal(sessionId: string): Promise<SessionPrincipalRecord | null> {
    const [row] = await this.#sql<
      {
        session_id: string;
        last_used_at: Date;
        user_id: string;
        email: string;
        name: string;
        platform_admin: boolean;
        organisation_id: string | null;
        role: Role | null;
      }[]
    >`
      SELECT s.id AS session_id, s.last_used_at, u.id AS user_id, u.email, u.name, u.platform_admin,
             m.organisation_id, m.role
      FROM sessions s
      JOIN users u ON u.id = s.user_id
      LEFT JOIN memberships m ON m.user_id = u.id
      WHERE s.id = ${sessionId} AND s.revoked_at IS NULL AND s.expires_at > now()`;
    if (row === undefined) return null;
    return {
      sessionId: row.session_id,
      sessionLastUsedAt: row.last_used_at,
      userId: row.user_id,
      email: row.email,
      name: row.name,
      platformAdmin: row.platform_admin,
      organisationId: row.organisation_id,
      role: row.role,
    };
  }

  async touch(sessionId: string, sql: Sql = this.#sql): Promise<void> {
    await sql`UPDATE sessions SET last_used_at = now() WHERE id = ${sessionId}`;
  }

  /** Active sessions, newest first; the cursor is the position of the last one of the previous page. */
  async listActiveForUser(
    userId: string,
    options: { limit: number; cursor: string | null },
  ): Promise<{ items: SessionRecord[]; nextCursor: string | null }> {
    const position = options.cursor === null ? null : parseSessionPosition(options.cursor);
    const rows = await this.#sql<(SessionRow & { position: string })[]>`
      SELECT *, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || '|' || id AS position
      FROM sessions
      WHERE user_id = ${userId} AND revoked_at IS NULL AND expires_at > now()
        ${
          position === null
            ? this.#sql``
            : this
                .#sql`AND (created_at, id) < (${position.createdAt}::timestamp AT TIME ZONE 'UTC', ${position.id})`
        }
      ORDER BY created_at DESC, id DESC
      LIMIT ${options.limit + 1}`;
    const page = rows.slice(0, options.limit);
    return {
      items: page.map(toSession),
      nextCursor: rows.length > options.limit ? (page.at(-1)?.position ?? null) : null,
    };
  }

  async revoke(sessionId: string, reason: string, sql: Sql = this.#sql): Promise<boolean> {
    const rows = await sql`
      UPDATE sessions SET revoked_at = now(), revoked_reason = ${reason}
      WHERE id = ${sessionId} AND revoked_at IS NULL
      RETURNING 1`;
    return rows.length > 0;
  }

  /** Ends every active session of the user, except `keep` when given; returns how many ended. */
  async revokeAllForUser(
    userId: string,
    reason: string,
    options: { keep?: string } = {},
    sql: Sql = this.#sql,
  ): Promise<number> {
    const rows = await sql`
      UPDATE sessions SET revoked_at = now(), revoked_reason = ${reason}
      WHERE user_id = ${userId} AND revoked_at IS NULL
        ${options.keep === undefined ? sql`` : sql`AND id <> ${options.keep}`}
      RETURNING 1`;
    return rows.length;
  }

  async addRefreshToken(sessionId: string, tokenHash: string, sql: Sql = this.#sql): Promise<void> {
    await sql`INSERT INTO refresh_tokens (token_hash, session_id) VALUES (${tokenHash}, ${sessionId})`;
  }

  async findRefreshToken(tokenHash: string, sql: Sql = this.#sql): Promise<RefreshTokenRecord | null> {
    const [row] = await sql<{ token_hash: string; session_id: string; used_at: Date | null }[]>`
      SELECT token_hash, session_id, used_at FROM refresh_tokens WHERE token_hash = ${tokenHash}`;
    return row ? { tokenHash: row.token_hash, sessionId: row.session_id, usedAt: row.used_at } : null;
  }

  /** Marks the token used; false when it already was (a concurrent or repeated presentation). */
  async useRefreshToken(tokenHash: string, sql: Sql = this.#sql): Promise<boolean> {
    const rows = await sql`
      UPDATE refresh_tokens SET used_at = now() WHERE token_hash = ${tokenHash} AND used_at IS NULL
      RETURNING 1`;
    return rows.length > 0;
  }
}

const SESSION_POSITION = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6})\|([0-9a-f-]{36})$/;

/** Whether a string is a position {@link SessionStore.listActiveForUser} hands out as its cursor. */
export function isSessionPosition(cursor: string): boolean {
  return SESSION_POSITION.test(cursor);
}

function parseSessionPosition(cursor: string): { createdAt: string; id: string } {
  const match = SESSION_POSITION.exec(cursor);
  if (match === null) throw new Error('not a session list position');
  return { createdAt: match[1] as string, id: match[2] as string };
}
