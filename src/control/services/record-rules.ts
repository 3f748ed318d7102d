import { OrganisationNameTakenError } from '../../store/organisations.js';
import type { CredentialRecord } from '../../store/records.js';
import { isManager, type Member } from '../auth/caller.js';
import { ProblemError } from '../problems.js';

/** Rules about records that more than one service applies, each stated once. */

/** Owners and admins use every credential of the organisation; a member only those they created. */
export function requireCredentialOfMember(
  member: Member,
  credential: Pick<CredentialRecord, 'createdBy'>,
  refusal: string,
): void {
  if (!isManager(member) && credential.createdBy !== member.userId) {
    throw new ProblemError('forbidden', refusal);
  }
}

/** For a store write's catch: organisation names are unique (case-insensitively). */
export function rethrowOrganisationNameTaken(error: unknown): never {
  if (error instanceof OrganisationNameTakenError) throw new ProblemError('organisation_name_taken');
  throw error;
}
