import { controlPlane, expectData, problemCodeOf, refusalOf, type Schemas } from './api-client.js';
import { applySetCookies, cookieHeader } from './cookie-jar.js';
import { NotLoggedInError } from './errors.js';
import type { Profile, ProfileStore, StoredSession } from './profile-store.js';
import type { Transport } from './transport.js';

/**
 * Refresh this long before the access token's recorded expiry, so that a token does not expire
 * between the check and the gateway reading it.
 */
const EXPIRY_MARGIN_MS = 5_000;

type TokenAnswer = Schemas['TokenResponse'];

/** The command that starts a session for `profile`, for the hint in a "log in again" error. */
export function loginCommand(profileName: string): string {
  return profileName === 'default' ? 's3gw login' : `s3gw login --profile ${profileName}`;
}

/** The session a login (or an accepted invitation) answered with, ready to store. */
export function sessionFrom(
  answer: TokenAnswer,
  response: Response,
  previous: StoredSession['cookies'] = {},
  now = new Date(),
): StoredSession {
  return {
    accessToken: answer.access_token,
    accessTokenExpiresAt: new Date(now.getTime() + answer.expires_in * 1000).toISOString(),
    cookies: applySetCookies(previous, response.headers.getSetCookie(), now),
  };
}

/**
 * A stored session of one profile, as a transport that authorises every request: it refreshes the
 * access token before it expires (and once more when the gateway says it has), stores the rotated
 * refresh cookie each time, and turns a final 401 into "log in again" (exit code 3).
 */
export class Session {
  #profile: Profile & { session: StoredSession };

  private constructor(
    private readonly store: ProfileStore,
    readonly profileName: string,
    profile: Profile & { session: StoredSession },
    private readonly network: Transport,
  ) {
    this.#profile = profile;
  }

  static open(store: ProfileStore, profileName: string, network: Transport): Session {
    const profile = store.read(profileName);
    if (profile?.session === undefined) {
      throw new NotLoggedInError(
        `not logged in${profileName === 'default' ? '' : ` with the profile "${profileName}"`}: run ${loginCommand(profileName)}`,
      );
    }
    return new Session(store, profileName, { ...profile, session: profile.session }, network);
  }

  get url(): string {
    return this.#profile.url;
  }

  get profile(): Profile {
    return this.#profile;
  }

  readonly transport: Transport = async (request) => {
    const retry = request.clone();
    let token = this.#profile.session.accessToken;
    if (Date.parse(this.#profile.session.accessTokenExpiresAt) - Date.now() < EXPIRY_MARGIN_MS) {
      token = await this.#refreshed(token);
    }
    let response = await this.network(withBearer(request, token));
    // The recorded expiry can be wrong (another machine's clock, a gateway with a shorter TTL).
    if (response.status === 401 && (await problemCodeOf(response)) === 'token_expired') {
      response = await this.network(withBearer(retry, await this.#refreshed(token)));
    }
    if (response.status === 401) throw this.#loggedOut(response, await bodyOf(response));
    return response;
  };

  /**
   * A fresh access token in place of `stale`. Under the profile's lock: another s3gw process may
   * have refreshed already, and its token is used instead of spending the (now rotated) cookie.
   */
  async #refreshed(stale: string): Promise<string> {
    return this.store.exclusive(this.profileName, async () => {
      const stored = this.store.read(this.profileName);
      if (stored?.session === undefined) {
        throw new NotLoggedInError(`logged out meanwhile: run ${loginCommand(this.profileName)}`);
      }
      if (stored.session.accessToken !== stale) {
        this.#profile = { ...stored, session: stored.session };
        return stored.session.accessToken;
      }
      const cookie = cookieHeader(stored.session.cookies);
      if (cookie === null) {
        this.#forget(stored);
        throw new NotLoggedInError(`the session has expired: run ${loginCommand(this.profileName)}`);
      }
      const api = controlPlane(stored.url, this.network);
      const answer = await api.POST('/v1/auth/refresh', { headers: { cookie } });
      if (answer.error !== undefined) {
        if (answer.response.status === 401) {
          this.#forget(stored);
          throw this.#loggedOut(answer.response, answer.error);
        }
        throw refusalOf(answer.response, answer.error);
      }
      const session = sessionFrom(answer.data, answer.response, stored.session.cookies);
      this.#profile = { ...stored, session };
      this.store.write(this.profileName, this.#profile);
      return session.accessToken;
    });
  }

  /** Ends the session at the gateway (best effort when it already ended) and forgets it here. */
  async logout(): Promise<void> {
    await this.store.exclusive(this.profileName, async () => {
      const stored = this.store.read(this.profileName) ?? this.#profile;
      await endSession(stored, this.network);
      this.#forget(stored);
    });
  }

  #forget(stored: Profile): void {
    const { session: _ended, ...rest } = stored;
    this.store.write(this.profileName, rest);
  }

  #loggedOut(response: Response, body: unknown): NotLoggedInError {
    const refusal = refusalOf(response, body);
    return new NotLoggedInError(`${refusal.message}; run ${loginCommand(this.profileName)}`);
  }
}

/**
 * Ends a stored session at the gateway with its refresh cookie. A session the gateway no longer
 * knows (401) counts as ended; any other refusal is thrown.
 */
async function endSession(profile: Profile, network: Transport): Promise<void> {
  const cookie = profile.session === undefined ? null : cookieHeader(profile.session.cookies);
  if (cookie === null) return;
  const answer = await controlPlane(profile.url, network).POST('/v1/auth/logout', { headers: { cookie } });
  if (answer.error !== undefined && answer.response.status !== 401)
    throw refusalOf(answer.response, answer.error);
}

/** What became of the session a profile held before a new login replaced it. */
export type PreviousSession =
  { ended: boolean } | { notEnded: { url: string; reason: string; expiresAt: string | null } };

export interface NewSession {
  answer: TokenAnswer;
  previous: PreviousSession;
}

/**
 * Stores a new session in the profile, ending the one it replaces at its gateway first (best
 * effort): otherwise that session would stay valid there, with nobody able to end it, until it
 * expires. Under the profile's lock, as a refresh is.
 */
async function storeNewSession(
  store: ProfileStore,
  profileName: string,
  profile: Profile & { session: StoredSession },
  network: Transport,
): Promise<PreviousSession> {
  return store.exclusive(profileName, async () => {
    const stored = store.read(profileName);
    let previous: PreviousSession = { ended: false };
    if (stored?.session !== undefined && cookieHeader(stored.session.cookies) !== null) {
      try {
        await endSession(stored, network);
        previous = { ended: true };
      } catch (error) {
        const expiries = Object.values(stored.session.cookies).flatMap((cookie) => cookie.expiresAt ?? []);
        previous = {
          notEnded: {
            url: stored.url,
            reason: error instanceof Error ? error.message : String(error),
            expiresAt: expiries.sort().at(-1) ?? null,
          },
        };
      }
    }
    store.write(profileName, profile);
    return previous;
  });
}

/** Logs in and stores the session in the profile (creating or updating it). */
export async function logIn(
  store: ProfileStore,
  profileName: string,
  profile: Omit<Profile, 'session'>,
  network: Transport,
  credentials: { email: string; password: string },
): Promise<NewSession> {
  const api = controlPlane(profile.url, network);
  const answer = await api.POST('/v1/auth/login', { body: credentials });
  const data = await expectData(Promise.resolve(answer));
  const session = sessionFrom(data, answer.response);
  return {
    answer: data,
    previous: await storeNewSession(store, profileName, { ...profile, session }, network),
  };
}

/** Joins an organisation with an invitation token and stores the session it starts. */
export async function acceptInvitation(
  store: ProfileStore,
  profileName: string,
  profile: Omit<Profile, 'session'>,
  network: Transport,
  invitation: { token: string; password: string; name: string },
): Promise<NewSession> {
  const api = controlPlane(profile.url, network);
  const answer = await api.POST('/v1/auth/invitations/accept', { body: invitation });
  const data = await expectData(Promise.resolve(answer));
  const session = sessionFrom(data, answer.response);
  const previous = await storeNewSession(
    store,
    profileName,
    { ...profile, email: data.user.email, session },
    network,
  );
  return { answer: data, previous };
}

function withBearer(request: Request, token: string): Request {
  const authorised = new Request(request);
  authorised.headers.set('authorization', `Bearer ${token}`);
  return authorised;
}

async function bodyOf(response: Response): Promise<unknown> {
  try {
    return await response.clone().json();
  } catch {
    return undefined;
  }
}
