import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { LocalError, UsageError } from './errors.js';

/** A cookie the authentication endpoints set (the rotating refresh cookie), as the CLI keeps it. */
export interface StoredCookie {
  value: string;
  /** ISO time; absent for a cookie without an expiry. */
  expiresAt?: string;
}

export interface StoredSession {
  accessToken: string;
  /** ISO time the access token stops being accepted, from the login or refresh answer's expires_in. */
  accessTokenExpiresAt: string;
  /** By cookie name: sent back to /v1/auth/refresh and /v1/auth/logout only. */
  cookies: Record<string, StoredCookie>;
}

/** One gateway the person uses: where it is, who they are there, and their session. */
export interface Profile {
  /** The control plane's base URL, e.g. http://127.0.0.1:9001 (without /v1). */
  url: string;
  email?: string;
  /** The storage endpoint's URL and signing region, for the client settings `--print` writes. */
  storageUrl?: string;
  region?: string;
  session?: StoredSession;
}

/** A lock older than this was left by a process that died; refreshing takes a round trip. */
const LOCK_STALE_MS = 15_000;

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** $XDG_CONFIG_HOME/s3gw, or ~/.config/s3gw. */
export function configDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : path.join(homedir(), '.config');
  return path.join(base, 's3gw');
}

/**
 * Profiles on disk, one JSON file each under `<config>/profiles/`. They hold a refresh cookie
 * that is as good as a password for the session's lifetime, so the directories are 0700 and the
 * files 0600, and a file is replaced by rename so that a crash never leaves half a session.
 */
export class ProfileStore {
  readonly directory: string;

  constructor(
    readonly root: string = configDirectory(),
    /** How often to try for a profile's lock (10–200 ms apart, some 20 s in all) before giving up. */
    private readonly lockRetries = 100,
  ) {
    this.directory = path.join(root, 'profiles');
  }

  fileOf(name: string): string {
    if (!PROFILE_NAME.test(name)) {
      throw new UsageError(
        `the profile name "${name}" is not valid: use letters, digits, ".", "_" and "-" (at most 64)`,
      );
    }
    return path.join(this.directory, `${name}.json`);
  }

  read(name: string): Profile | null {
    const file = this.fileOf(name);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new LocalError(`cannot read the profile ${file}: ${fileProblem(error)}`, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new LocalError(`the profile ${file} is not valid JSON; delete it and log in again`);
    }
    if (!isProfile(parsed)) {
      throw new LocalError(`the profile ${file} is not one s3gw wrote; delete it and log in again`);
    }
    return parsed;
  }

  write(name: string, profile: Profile): void {
    const file = this.fileOf(name);
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      this.#ensureDirectories();
      writeFileSync(temporary, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
      renameSync(temporary, file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw new LocalError(`cannot write the profile ${file}: ${fileProblem(error)}`, { cause: error });
    }
  }

  /**
   * Runs `work` while no other s3gw process works on this profile. A refresh token is good for one
   * refresh only (a second use ends the session), so two commands that find the access token
   * expired at the same moment must not both refresh: the second waits, then finds the first's.
   */
  async exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    const file = this.fileOf(name);
    const { lock } = await import('proper-lockfile');
    let release: () => Promise<void>;
    try {
      this.#ensureDirectories();
      release = await lock(file, {
        realpath: false,
        stale: LOCK_STALE_MS,
        retries: { retries: this.lockRetries, minTimeout: 10, maxTimeout: 200 },
        // Another process took the lock as stale (not updated for LOCK_STALE_MS): what this one
        // does under it cannot be undone, and throwing from proper-lockfile's timer would only
        // crash the command with a stack trace.
        onCompromised: () => undefined,
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
        throw new LocalError(
          `the profile "${name}" stays locked by another s3gw command (${file}.lock); try again, or ` +
            'remove that lock directory if no s3gw is running',
          { cause: error },
        );
      }
      throw new LocalError(`cannot lock the profile ${file}: ${fileProblem(error)}`, { cause: error });
    }
    try {
      return await work();
    } finally {
      // Fails only when the lock was taken over meanwhile (see onCompromised): nothing left to free.
      await release().catch(() => undefined);
    }
  }

  remove(name: string): void {
    rmSync(this.fileOf(name), { force: true });
  }

  /** Creates the directories when missing and narrows them to their owner when they are not. */
  #ensureDirectories(): void {
    for (const directory of [this.root, this.directory]) {
      mkdirSync(directory, { recursive: true, mode: 0o700 });
      chmodSync(directory, 0o700);
    }
  }
}

/** What went wrong with a file, for people: the cause in words, then the system's code. */
function fileProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === undefined ? undefined : FILE_PROBLEMS[code];
  if (reason !== undefined) return `${reason} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of its path is not a directory',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
};

function isProfile(value: unknown): value is Profile {
  if (typeof value !== 'object' || value === null || typeof (value as Profile).url !== 'string') return false;
  const session = (value as Profile).session;
  return (
    session === undefined ||
    (typeof session === 'object' &&
      session !== null &&
      typeof session.accessToken === 'string' &&
      typeof session.accessTokenExpiresAt === 'string' &&
      typeof session.cookies === 'object' &&
      session.cookies !== null)
  );
}
