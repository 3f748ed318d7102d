import { generateOpaqueToken, hashToken } from '../../security/tokens.js';
import type { Sql } from '../../store/database.js';
import type { Role } from '../../store/records.js';
import type { ControlDependencies } from '../dependencies.js';
import type { OneTimeToken } from '../models/common.js';
import { ProblemError } from '../problems.js';

const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** Issues invitation tokens (for new members and for a new organisation's first owner). */
export class InvitationIssuer {
  readonly #deps: ControlDependencies;

  constructor(deps: ControlDependencies) {
    this.#deps = deps;
  }

  /** A person belongs to at most one organisation: inviting someone who has one is a conflict now, not later. */
  async ensureInvitable(email: string, sql?: Sql): Promise<void> {
    const { users } = this.#deps.context.store;
    const user = await users.findByEmail(email, sql);
    if (user !== null && (await users.membership(user.id, sql)) !== null) {
      throw new ProblemError('already_member', `${email} already belongs to an organisation.`);
    }
  }

  async issue(
    invitation: { organisationId: string; email: string; role: Role; createdBy: string },
    sql?: Sql,
  ): Promise<OneTimeToken> {
    const token = generateOpaqueToken();
    const record = await this.#deps.stores.invitations.create(
      {
        ...invitation,
        tokenHash: hashToken(token),
        expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
      },
      sql,
    );
    return { token, expiresAt: record.expiresAt };
  }
}
