import { generateOpaqueToken, hashToken } from '../../security/tokens.js';
import type { Sql } from '../../store/database.js';
import type { MembershipRecord, UserRecord } from '../../store/users.js';
import type { RequestOrigin } from '../auth/caller.js';
import type { ControlDependencies } from '../dependencies.js';
import type { TokenResponse } from '../models/auth.js';
import { userSummary } from './views.js';

/** A successful login: the response body, and the refresh token for the cookie. */
export interface IssuedTokens {
  body: TokenResponse;
  refreshToken: string;
  refreshExpiresAt: Date;
}

/** Starts sessions and issues their tokens; shared by login, invitation accept and refresh. */
export class SessionStarter {
  readonly #deps: ControlDependencies;

  constructor(deps: ControlDependencies) {
    this.#deps = deps;
  }

  async start(
    user: UserRecord,
    membership: MembershipRecord | null,
    origin: RequestOrigin,
  ): Promise<IssuedTokens> {
    const { sessions } = this.#deps.stores;
    const ttlMs = this.#deps.context.config.control.refreshTokenTtlSeconds * 1000;
    const session = await sessions.create({
      userId: user.id,
      userAgent: origin.userAgent,
      sourceAddress: origin.sourceAddress,
      expiresAt: new Date(Date.now() + ttlMs),
    });
    const refreshToken = generateOpaqueToken();
    await sessions.addRefreshToken(session.id, hashToken(refreshToken));
    return this.tokensFor(user, membership, session.id, session.expiresAt, refreshToken);
  }

  /** A new refresh token of an existing session; call inside the transaction that used the old one. */
  async nextRefreshToken(sessionId: string, sql: Sql): Promise<string> {
    const refreshToken = generateOpaqueToken();
    await this.#deps.stores.sessions.addRefreshToken(sessionId, hashToken(refreshToken), sql);
    return refreshToken;
  }

  async tokensFor(
    user: UserRecord,
    membership: MembershipRecord | null,
    sessionId: string,
    sessionExpiresAt: Date,
    refreshToken: string,
  ): Promise<IssuedTokens> {
    const access = await this.#deps.tokens.issue({ userId: user.id, sessionId });
    return {
      body: {
        access_token: access.token,
        token_type: 'Bearer',
        expires_in: access.expiresIn,
        user: userSummary(user, membership),
      },
      refreshToken,
      refreshExpiresAt: sessionExpiresAt,
    };
  }
}
