import type { Request } from 'express';
import { ProblemError } from '../problems.js';
import { runtimeOf } from '../runtime-locals.js';
import { originOf, type Caller } from './caller.js';

/** Sessions' "last used" is written at most this often, not on every request. */
const TOUCH_INTERVAL_MS = 60_000;

/** The Authorization header's scheme and credentials, or null when absent. */
function authorization(request: Request): { scheme: string; credentials: string } | null {
  const header = request.get('authorization')?.trim();
  if (header === undefined || header === '') return null;
  const space = header.indexOf(' ');
  return space === -1
    ? { scheme: header, credentials: '' }
    : { scheme: header.slice(0, space), credentials: header.slice(space + 1).trim() };
}

/**
 * tsoa's authentication hook for `@Security('bearer')`. SigV4 credentials never get here
 * (storage-credentials.ts refuses them for the whole app); any other non-bearer scheme gets the
 * same code of its own, so a caller learns that only bearer tokens work here.
 */
export async function expressAuthentication(
  request: Request,
  securityName: string,
  _scopes?: string[],
): Promise<Caller> {
  if (securityName !== 'bearer') throw new Error(`unknown security scheme ${securityName}`);
  const header = authorization(request);
  if (header === null) {
    throw new ProblemError(
      'unauthenticated',
      'Send Authorization: Bearer <access_token> (from /v1/auth/login).',
    );
  }
  if (header.scheme.toLowerCase() !== 'bearer') {
    throw new ProblemError(
      'storage_credentials_not_accepted',
      `The ${header.scheme} scheme is not accepted: storage credentials carry no control-plane authority. ` +
        'Log in and send Authorization: Bearer <access_token>.',
    );
  }
  if (header.credentials === '') throw new ProblemError('unauthenticated', 'The bearer token is empty.');

  const { deps } = runtimeOf(request);
  const claims = await deps.tokens.verify(header.credentials);
  const principal = await deps.stores.sessions.findActivePrincipal(claims.sessionId);
  if (principal === null || principal.userId !== claims.userId) {
    throw new ProblemError('session_ended', 'The session of this access token has ended; log in again.');
  }
  if (Date.now() - principal.sessionLastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    await deps.stores.sessions.touch(principal.sessionId);
  }
  const origin = originOf(request);
  return {
    userId: principal.userId,
    email: principal.email,
    name: principal.name,
    platformAdmin: principal.platformAdmin,
    sessionId: principal.sessionId,
    organisationId: principal.organisationId,
    role: principal.role,
    sourceAddress: origin.sourceAddress,
    userAgent: origin.userAgent,
  };
}
