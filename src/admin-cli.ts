/**
 * `npm run admin -- reset-password [--email E] [--password-stdin]` (from a build:
 * `node dist/admin-cli.js reset-password ...`): for an operator on the gateway's host, with its
 * configuration (the same environment as the gateway), when a platform admin's password is lost,
 * e.g. a first start whose generated password was never seen. Sets a new password (generated and
 * printed once, or read from stdin), ends the user's sessions, and records it in the audit log.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config/load.js';
import { hashPassword } from './security/passwords.js';
import { AuditLogStore } from './store/audit-log.js';
import { openDatabase } from './store/database.js';
import { SessionStore } from './store/sessions.js';
import { UserStore } from './store/users.js';

const USAGE = `usage: admin reset-password [--email EMAIL] [--password-stdin]
  Sets a new password for a user (default: the configured platform admin, GATEWAY_ADMIN_EMAIL),
  ends the user's sessions, and prints the generated password once unless it was given on stdin.
  Runs with the gateway's configuration (DATABASE_URL, or the local data directory, whose
  gateway must be stopped: the embedded database has one user at a time).`;

const MIN_PASSWORD_LENGTH = 12;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export async function resetPassword(argv: readonly string[]): Promise<string> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { email: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals[0] !== 'reset-password' || positionals.length !== 1) throw new UsageError(USAGE);
  const config = loadConfig();
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

class UsageError extends Error {}

if (process.argv[1]?.match(/admin-cli\.[jt]s$/)) {
  resetPassword(process.argv.slice(2)).then(
    (output) => process.stdout.write(output),
    (error: unknown) => {
      const message =
        error instanceof UsageError || error instanceof ConfigError ? error.message : String(error);
      process.stderr.write(`${message}\n`);
      process.exit(error instanceof UsageError ? 2 : 1);
    },
  );
}
