import { describe, expect, it } from 'vitest';
import type { Member } from '../../../src/control/auth/caller.js';
import { ProblemError } from '../../../src/control/problems.js';
import {
  requireCredentialOfMember,
  rethrowOrganisationNameTaken,
} from '../../../src/control/services/record-rules.js';
import { OrganisationNameTakenError } from '../../../src/store/organisations.js';

function member(role: Member['role'], userId = 'user-1'): Member {
  return {
    userId,
    email: `${userId}@example.test`,
    name: userId,
    platformAdmin: false,
    sessionId: 'session',
    organisationId: 'organisation',
    role,
    sourceAddress: null,
    userAgent: null,
  };
}

function problemOf(run: () => unknown): ProblemError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  return undefined;
}

describe('rules shared by the control-plane services', () => {
  it('lets owners and admins use any credential, a member only their own', () => {
    const someoneElses = { createdBy: 'user-2' };
    for (const role of ['owner', 'admin'] as const) {
      expect(problemOf(() => requireCredentialOfMember(member(role), someoneElses, 'no'))).toBeUndefined();
    }
    expect(problemOf(() => requireCredentialOfMember(member('member'), { createdBy: 'user-1' }, 'no'))).toBe(
      undefined,
    );
    for (const credential of [someoneElses, { createdBy: null }]) {
      const refused = problemOf(() => requireCredentialOfMember(member('member'), credential, 'not yours'));
      expect({ code: refused?.code, detail: refused?.message }).toEqual({
        code: 'forbidden',
        detail: 'not yours',
      });
    }
  });

  it('maps a taken organisation name to its problem and passes anything else on', () => {
    expect(problemOf(() => rethrowOrganisationNameTaken(new OrganisationNameTakenError('acme')))?.code).toBe(
      'organisation_name_taken',
    );
    const other = new Error('connection lost');
    expect(() => rethrowOrganisationNameTaken(other)).toThrow(other);
  });
});
