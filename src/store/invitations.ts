import type { Sql } from './database.js';
import type { Role } from './records.js';
import { newId } from '../security/ids.js';

/** An invitation to join an organisation; its token is stored only as a hash and works once. */
export interface InvitationRecord {
  id: string;
  organisationId: string;
  email: string;
  role: Role;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
}

interface InvitationRow {
  id: string;
  organisation_id: string;
  email: string;
  role: Role;
  created_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
}

function toInvitation(row: InvitationRow): InvitationRecord {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    email: row.email,
    role: row.role,
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    acceptedAt: row.accepted_at,
  };
}

export class InvitationStore {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async create(
    invitation: {
      organisationId: string;
      email: string;
      role: Role;
      tokenHash: string;
      createdBy: string | null;
      expiresAt: Date;
    },
    sql: Sql = this.#sql,
  ): Promise<InvitationRecord> {
    const [row] = await sql<InvitationRow[]>`
      INSERT INTO invitations (id, organisation_id, email, role, token_hash, created_by, expires_at)
      VALUES (${newId()}, ${invitation.organisationId}, ${invitation.email}, ${invitation.role},
              ${invitation.tokenHash}, ${invitation.createdBy}, ${invitation.expiresAt})
      RETURNING id, organisation_id, email, role, created_by, created_at, expires_at, accepted_at`;
    return toInvitation(row as InvitationRow);
  }

  /** The invitation of this token when it is neither accepted nor expired. */
  async findOpenByTokenHash(tokenHash: string, sql: Sql = this.#sql): Promise<InvitationRecord | null> {
    const [row] = await sql<InvitationRow[]>`
      SELECT id, organisation_id, email, role, created_by, created_at, expires_at, accepted_at
      FROM invitations
      WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND expires_at > now()`;
    return row ? toInvitation(row) : null;
  }

  /** False when it was accepted meanwhile: of two concurrent acceptances only one wins. */
  async markAccepted(id: string, sql: Sql = this.#sql): Promise<boolean> {
    const rows = await sql`
      UPDATE invitations SET accepted_at = now() WHERE id = ${id} AND accepted_at IS NULL RETURNING 1`;
    return rows.length > 0;
  }
}
