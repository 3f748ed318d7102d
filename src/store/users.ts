import type { Sql } from './database.js';
import type { Role } from './records.js';
import { newId } from '../security/ids.js';

export interface UserRecord {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
  platformAdmin: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface MembershipRecord {
  userId: string;
  organisationId: string;
  role: Role;
  createdAt: Date;
}

interface UserRow {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  platform_admin: boolean;
  created_at: Date;
  updated_at: Date;
}

function toUser(row: UserRow): UserRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    passwordHash: row.password_hash,
    platformAdmin: row.platform_admin,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

interface MembershipRow {
  user_id: string;
  organisation_id: string;
  role: Role;
  created_at: Date;
}

function toMembership(row: MembershipRow): MembershipRecord {
  return {
    userId: row.user_id,
    organisationId: row.organisation_id,
    role: row.role,
    createdAt: row.created_at,
  };
}

export class EmailTakenError extends Error {
  constructor(email: string) {
    super(`a user with e-mail ${email} exists`);
    this.name = 'EmailTakenError';
  }
}

/** People, and the organisation each belongs to (at most one). */
export class UserStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async create(
    user: { email: string; name: string; passwordHash: string; platformAdmin: boolean },
    sql: Sql = this.#sql,
  ): Promise<UserRecord> {
    const rows = await sql<UserRow[]>`
      INSERT INTO users (id, email, name, password_hash, platform_admin)
      VALUES (${newId()}, ${user.email}, ${user.name}, ${user.passwordHash}, ${user.platformAdmin})
      ON CONFLICT DO NOTHING
      RETURNING *`;
    const row = rows[0];
    if (row === undefined) throw new EmailTakenError(user.email);
    return toUser(row);
  }

  async findById(id: string, sql: Sql = this.#sql): Promise<UserRecord | null> {
    const [row] = await sql<UserRow[]>`SELECT * FROM users WHERE id = ${id}`;
    return row ? toUser(row) : null;
  }

  async findByEmail(email: string, sql: Sql = this.#sql): Promise<UserRecord | null> {
    const [row] = await sql<UserRow[]>`SELECT * FROM users WHERE lower(email) = lower(${email})`;
    return row ? toUser(row) : null;
  }

  async updateName(id: string, name: string, sql: Sql = this.#sql): Promise<UserRecord | null> {
    const [row] = await sql<UserRow[]>`
      UPDATE users SET name = ${name}, updated_at = now() WHERE id = ${id} RETURNING *`;
    return row ? toUser(row) : null;
  }

  async updatePasswordHash(id: string, passwordHash: string, sql: Sql = this.#sql): Promise<void> {
    await sql`UPDATE users SET password_hash = ${passwordHash}, updated_at = now() WHERE id = ${id}`;
  }

  async membership(userId: string, sql: Sql = this.#sql): Promise<MembershipRecord | null> {
    const [row] = await sql<MembershipRow[]>`SELECT * FROM memberships WHERE user_id = ${userId}`;
    return row ? toMembership(row) : null;
  }

  async addMembership(userId: string, organisationId: string, role: Role, sql: Sql = this.#sql) {
    const [row] = await sql<MembershipRow[]>`
      INSERT INTO memberships (user_id, organisation_id, role) VALUES (${userId}, ${organisationId}, ${role})
      RETURNING *`;
    return toMembership(row as MembershipRow);
  }

  async setRole(userId: string, role: Role, sql: Sql = this.#sql): Promise<void> {
    await sql`UPDATE memberships SET role = ${role} WHERE user_id = ${userId}`;
  }

  async removeMembership(userId: string, sql: Sql = this.#sql): Promise<boolean> {
    const rows = await sql`DELETE FROM memberships WHERE user_id = ${userId} RETURNING 1`;
    return rows.length > 0;
  }

  async members(
    organisationId: string,
    options: { limit: number; cursor: string | null },
  ): Promise<{ items: (UserRecord & { role: Role; joinedAt: Date })[]; nextCursor: string | null }> {
    const rows = await this.#sql<(UserRow & { role: Role; joined_at: Date })[]>`
      SELECT u.*, m.role, m.created_at AS joined_at
      FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.organisation_id = ${organisationId}
        ${options.cursor === null ? this.#sql`` : this.#sql`AND u.id > ${options.cursor}`}
      ORDER BY u.id
      LIMIT ${options.limit + 1}`;
    const items = rows
      .slice(0, options.limit)
      .map((row) => ({ ...toUser(row), role: row.role, joinedAt: row.joined_at }));
    return { items, nextCursor: rows.length > options.limit ? (items.at(-1)?.id ?? null) : null };
  }

  /** Owners counted under a row lock, so two concurrent demotions cannot both pass "not the last owner". */
  async countOwnersForUpdate(organisationId: string, sql: Sql): Promise<number> {
    const rows = await sql`
      SELECT user_id FROM memberships WHERE organisation_id = ${organisationId} AND role = 'owner' FOR UPDATE`;
    return rows.length;
  }
}
