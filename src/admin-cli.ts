/**
 * `npm run admin -- <command>` (from a build: `node dist/admin-cli.js <command>`): for an operator
 * on the gateway's host, with its configuration (the same environment as the gateway).
 *
 * - `reset-password [--email E] [--password-stdin]`: when a platform admin's password is lost,
 *   e.g. a first start whose generated password was never seen. Sets a new password (generated and
 *   printed once, or read from stdin), ends the user's sessions, and records it in the audit log.
 * - `recount-usage <bucket>`: lists the bucket through the object store and sets the storage usage
 *   its quotas are held against to what the store holds (README, "Quotas and rate limits").
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config/load.js';
import { openBackend } from './backend/open-backend.js';
import { StorageCounting } from './control/services/storage-counting.js';
import { hashPassword } from './security/passwords.js';
import { AuditLogStore } from './store/audit-log.js';
import { BucketStore } from './store/buckets.js';
import { openDatabase } from './store/database.js';
import { InvalidationBus } from './store/invalidation.js';
import { SessionStore } from './store/sessions.js';
import { bucketScope, StorageUsageStore } from './store/storage-usage.js';
import { UserStore } from './store/users.js';

const USAGE = `usage: admin reset-password [--email EMAIL] [--password-stdin]
       admin recount-usage BUCKET
  reset-password sets a new password for a user (default: the configured platform admin,
  GATEWAY_ADMIN_EMAIL), ends the user's sessions, and prints the generated password once unless it
  was given on stdin.
  recount-usage lists the bucket through the object store and sets the storage usage its quotas
  are held against to what the store holds.
  Both run with the gateway's configuration (DATABASE_URL, or the local data directory, whose
  gateway must be stopped: the embedded database and object store have one user at a time).`;

const MIN_PASSWORD_LENGTH = 12;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Runs one command; resolves to what it prints on stdout. */
export async function runAdminCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  if (argv[0] === 'reset-password') return resetPassword(argv, env);
  if (argv[0] === 'recount-usage') return recountUsage(argv, env);
  throw new UsageError(USAGE);
}

export async function resetPassword(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { email: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals[0] !== 'reset-password' || positionals.length !== 1) throw new UsageError(USAGE);
  const config = loadConfig(env);
  const email = values.email ?? config.admin.email;
  const given = values['password-stdin'] === true ? await readStdin() : null;
  if (given !== null && given.length < MIN_PASSWORD_LENGTH) {
    throw new UsageError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const password = given ?? randomBytes(15).toString('base64url');
  const db = await openDatabase(config);
  try {
    const users = new UserStore(db.sql);
    const user = await users.findByEmail(email);
    if (user === null) throw new UsageError(`no user with the e-mail address ${email}`);
    await users.updatePasswordHash(user.id, await hashPassword(password));
    const ended = await new SessionStore(db.sql).revokeAllForUser(user.id, 'password_reset');
    const membership = await users.membership(user.id);
    await new AuditLogStore(db.sql).append({
      organisationId: membership?.organisationId ?? null,
      actorUserId: null,
      actorEmail: null,
      action: 'user.password_reset_by_operator',
      target: user.email,
      sourceAddress: null,
      details: { sessionsEnded: ended },
    });
    return given === null
      ? `new password for ${user.email}: ${password}\n(shown only now; ${ended} session(s) ended)\n`
      : `password of ${user.email} set; ${ended} session(s) ended\n`;
  } finally {
    await db.close();
  }
}

/**
 * Counts the bucket through the store; when its usage is counted (a quota applies), sets it to that
 * count, correcting whatever the gateway's accounting missed (writes made straight to the store, a
 * database that did not answer when a write was recorded).
 */
export async function recountUsage(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const { positionals } = parseArgs({ args: [...argv], options: {}, allowPositionals: true });
  const bucketName = positionals[1];
  if (positionals[0] !== 'recount-usage' || bucketName === undefined || positionals.length !== 2) {
    throw new UsageError(USAGE);
  }
  const config = loadConfig(env);
  const db = await openDatabase(config);
  let stopBackend = async (): Promise<void> => undefined;
  try {
    const buckets = new BucketStore(db.sql, new InvalidationBus(db.sql, { notifyPeers: false }));
    const bucket = await buckets.find(bucketName);
    if (bucket === null) throw new UsageError(`no bucket named ${bucketName}`);
    const opened = await openBackend(config);
    stopBackend = async () => {
      await opened.backend.close();
      await opened.embedded?.stop();
    };
    const storageUsage = new StorageUsageStore(db.sql);
    const before = (await storageUsage.figures(bucket.organisationId)).find(
      (row) => row.scope === bucketScope(bucket.name),
    );
    const { count, recorded } = await new StorageCounting({ buckets, storageUsage }, opened.backend).recount(
      bucket,
    );
    const held = `${count.objects} object(s), ${count.bytes} byte(s)`;
    if (!recorded)
      return `${bucket.name}: the store holds ${held}; no quota applies, so nothing is counted\n`;
    return (
      `${bucket.name}: the store holds ${held}; usage set to that ` +
      `(was ${before?.storedObjects ?? 0} object(s), ${before?.storedBytes ?? 0} byte(s))\n`
    );
  } finally {
    await stopBackend();
    await db.close();
  }
}

class UsageError extends Error {}

if (process.argv[1]?.match(/admin-cli\.[jt]s$/)) {
  runAdminCommand(process.argv.slice(2)).then(
    (output) => process.stdout.write(output),
    (error: unknown) => {
      const message =
        error instanceof UsageError || error instanceof ConfigError ? error.message : String(error);
      process.stderr.write(`${message}\n`);
      process.exit(error instanceof UsageError ? 2 : 1);
    },
  );
}
