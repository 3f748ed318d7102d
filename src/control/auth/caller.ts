import type { Request } from 'express';
import type { Role } from '../../store/records.js';
import { ProblemError } from '../problems.js';

/** The person behind an authenticated request, read fresh from the session on every request. */
export interface Caller {
  userId: string;
  email: string;
  name: string;
  platformAdmin: boolean;
  sessionId: string;
  organisationId: string | null;
  role: Role | null;
  sourceAddress: string | null;
  userAgent: string | null;
}

/** A caller who belongs to an organisation (most endpoints need one). */
export interface Member extends Caller {
  organisationId: string;
  role: Role;
}

/** Where an unauthenticated request came from, for sessions and the audit log. */
export interface RequestOrigin {
  sourceAddress: string | null;
  userAgent: string | null;
  /** Whether the client reached us over HTTPS (decides the refresh cookie's Secure attribute in 'auto'). */
  secure: boolean;
}

export function originOf(request: Request): RequestOrigin {
  // request.ip is the socket address unless GATEWAY_TRUSTED_PROXIES names the proxy in front.
  const address = request.ip ?? request.socket.remoteAddress ?? null;
  const userAgent = request.get('user-agent');
  return {
    // IPv4 clients of a dual-stack listener appear as ::ffff:a.b.c.d.
    sourceAddress: address === null ? null : address.replace(/^::ffff:/, ''),
    userAgent: userAgent === undefined ? null : userAgent.slice(0, 512),
    // Behind a TLS-terminating load balancer the socket is plain HTTP. Believing the forwarded
    // protocol is safe here: claiming HTTPS falsely only makes the caller's own cookie stricter.
    secure: request.secure || request.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https',
  };
}

/** The caller tsoa's authentication put on the request. */
export function callerOf(request: Request): Caller {
  const caller = (request as Request & { user?: Caller }).user;
  if (caller === undefined) throw new ProblemError('unauthenticated');
  return caller;
}

export function requireMember(caller: Caller): Member {
  if (caller.organisationId === null || caller.role === null) {
    throw new ProblemError('no_organisation', 'Join an organisation through an invitation first.');
  }
  return caller as Member;
}

const MANAGERS: readonly Role[] = ['owner', 'admin'];

/** Owners and admins manage members, credentials, buckets and CORS. */
export function requireManager(caller: Caller): Member {
  const member = requireMember(caller);
  if (!MANAGERS.includes(member.role)) {
    throw new ProblemError('forbidden', `Only owners and admins may do this; your role is ${member.role}.`);
  }
  return member;
}

export function isManager(member: Member): boolean {
  return MANAGERS.includes(member.role);
}

export function requirePlatformAdmin(caller: Caller): Caller {
  if (!caller.platformAdmin) throw new ProblemError('platform_admin_required');
  return caller;
}
