import { SignJWT, errors, jwtVerify } from 'jose';
import { ProblemError } from '../problems.js';

const ISSUER = 's3-gateway';
const AUDIENCE = 'control-plane';
const ALGORITHM = 'HS256';

/** What an access token asserts: the user and the session it was issued for. */
export interface AccessTokenClaims {
  userId: string;
  sessionId: string;
}

/**
 * Short-lived HS256 JWTs. They carry only ids: the session and the membership are read on every
 * request, so ending a session or changing a role takes effect before the token expires.
 */
export class AccessTokens {
  readonly #key: Uint8Array;
  readonly ttlSeconds: number;

  constructor(secret: string, ttlSeconds: number) {
    this.#key = new TextEncoder().encode(secret);
    this.ttlSeconds = ttlSeconds;
  }

  async issue(claims: AccessTokenClaims): Promise<{ token: string; expiresIn: number }> {
    const token = await new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.#key);
    return { token, expiresIn: this.ttlSeconds };
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') {
        throw new ProblemError('token_invalid', 'The access token does not name a user and session.');
      }
      return { userId: payload.sub, sessionId: payload.sid };
    } catch (error) {
      if (error instanceof ProblemError) throw error;
      if (error instanceof errors.JWTExpired) {
        throw new ProblemError('token_expired', 'The access token has expired; refresh it or log in again.');
      }
      throw new ProblemError('token_invalid', 'The access token could not be verified.');
    }
  }
}
