/**
 * `npm run admin -- <command>` (from a build: `node dist/admin-cli.js <command>`): for an operator
 * on the gateway's host, with its configuration (the same environment as the gateway).
 *
 * - `reset-password [--email E] [--password-stdin]`: when a platform admin's password is lost,
 *   e.g. a first start whose generated password was never seen. Sets a new password (generated and
 *   printed once, or read from stdin), ends the user's sessions, and records it in the audit log.
 * - `recount-usage <bucket>|--all`: lists the bucket (or every counted bucket) through the object
 *   store and sets the storage usage its quotas are held against to what the store holds, its
 *   uploads under way included; with --all, each counted organisation's usage is then set to the
 *   sum of its buckets' (README, "Quotas and rate limits").
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
import { StorageUsageStore } from './store/storage-usage.js';
import { bucketScope } from './store/usage-scopes.js';
import { UserStore } from './store/users.js';

const USAGE = `usage: admin reset-password [--email EMAIL] [--password-stdin]
       admin recount-usage BUCKET|--all
  reset-password sets a new password for a user (default: the configured platform admin,
  GATEWAY_ADMIN_EMAIL), ends the user's sessions, and prints the generated password once unless it
  was given on stdin.
  recount-usage lists the bucket (--all: every bucket under a quota) through the object store and
  sets the storage usage its quotas are held against to what the store holds, the parts of uploads
  under way included; --all then sets each organisation's usage to the sum of its buckets'.
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
 * Counts the bucket (or, with --all, every counted bucket, then every counted organisation) through
 * the store; when its usage is counted (a quota applies), sets it to that count, correcting
 * whatever the gateway's accounting missed (writes made straight to the store, a database that did
 * not answer when a write was recorded).
 */
export async function recountUsage(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { all: { type: 'boolean' } },
    allowPositionals: true,
  });
  const all = values.all === true;
  const named = positionals[1];
  if (positionals[0] !== 'recount-usage' || positionals.length !== (all ? 1 : 2)) throw new UsageError(USAGE);
  const config = loadConfig(env);
  const db = await openDatabase(config);
  let stopBackend = async (): Promise<void> => undefined;
  try {
    const buckets = new BucketStore(db.sql, new InvalidationBus(db.sql, { notifyPeers: false }));
    const storageUsage = new StorageUsageStore(db.sql);
    const names = all ? (await storageUsage.countedBuckets()).map((row) => row.bucket) : [named as string];
    const records = [];
    for (const name of names) {
      const bucket = await buckets.find(name);
      if (bucket === null) throw new UsageError(`no bucket named ${name}`);
      records.push(bucket);
    }
    const opened = await openBackend(config);
    stopBackend = async () => {
      await opened.backend.close();
      await opened.embedded?.stop();
    };
    const counting = new StorageCounting({ buckets, storageUsage }, opened.backend);
    let output = '';
    for (const bucket of records) {
      const before = (await storageUsage.figures(bucket.organisationId)).find(
        (row) => row.scope === bucketScope(bucket.name),
      );
      const { count, recorded } = await counting.recount(bucket);
      const parts = (count.uploads ?? []).flatMap((upload) => upload.parts);
      const held =
        `${count.objects} object(s), ${count.bytes} byte(s)` +
        (parts.length === 0
          ? ''
          : ` and ${parts.reduce((sum, part) => sum + part.bytes, 0)} byte(s) in ${parts.length} part(s) of uploads under way`);
      output += recorded
        ? `${bucket.name}: the store holds ${held}; usage set to that ` +
          `(was ${before?.storedObjects ?? 0} object(s), ${before?.storedBytes ?? 0} byte(s))\n`
        : `${bucket.name}: the store holds ${held}; no quota applies, so nothing is counted\n`;
    }
    if (all) {
      for (const organisationId of new Set(records.map((bucket) => bucket.organisationId))) {
        if (await storageUsage.resumOrganisation(organisationId))
          output += `organisation ${organisationId}: usage set to the sum of its buckets'\n`;
      }
    }
    return output;
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
