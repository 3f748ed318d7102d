import type { Command } from 'commander';
import { expectDone } from '../api-client.js';
import { CommandContext, LOCAL_CONTROL_URL } from '../context.js';
import { withExamples } from '../help.js';
import { httpUrl } from '../option-values.js';
import { promptLine, readSecret } from '../password-input.js';
import { when, type Output } from '../output.js';
import type { Profile } from '../profile-store.js';
import { acceptInvitation, logIn, type NewSession } from '../session.js';
import { networkTransport } from '../transport.js';

/** The storage endpoint of a gateway started with `npm start`, beside LOCAL_CONTROL_URL. */
const LOCAL_STORAGE_URL = 'http://127.0.0.1:9000';
const DEFAULT_REGION = 'us-east-1';

interface ConnectionOptions {
  url?: string;
  storageUrl?: string;
  region?: string;
}

/** login, logout, accepting an invitation and resetting a password with a token. */
export function registerAuthCommands(program: Command): void {
  const login = program
    .command('login')
    .description('log in to a gateway and keep the session in this profile')
    .option(
      '--url <url>',
      `the control plane's URL (default: the profile's, else ${LOCAL_CONTROL_URL})`,
      httpUrl('--url', { stripApiPath: true }),
    )
    .option('--email <email>', 'your e-mail address (asked when not given)')
    .option('--password-stdin', 'read the password from stdin instead of asking')
    .option(
      '--storage-url <url>',
      "the storage endpoint clients use, for credentials --print (default: the profile's)",
      httpUrl('--storage-url'),
    )
    .option(
      '--region <region>',
      `the signing region clients use (default: the profile's, else ${DEFAULT_REGION})`,
    )
    .action(
      async (options: ConnectionOptions & { email?: string; passwordStdin?: boolean }, command: Command) => {
        const context = CommandContext.of(command);
        const profile = connectionOf(context, options);
        const email =
          options.email ??
          context.storedProfile()?.email ??
          (await promptLine('E-mail: ', 'give --email (there is no terminal to ask on)'));
        const password = await readSecret({
          fromStdin: options.passwordStdin === true,
          prompt: `Password for ${email}: `,
          what: 'password',
        });
        const login = await logIn(
          context.store,
          context.profileName,
          { ...profile, email },
          networkTransport,
          {
            email,
            password,
          },
        );
        reportLogin(context.output, context.profileName, profile.url, login);
      },
    );
  withExamples(
    login,
    's3gw login --email admin@localhost',
    'printf \'%s\' "$PASSWORD" | s3gw login --url https://gw.example.com --email ada@example.com --password-stdin --storage-url https://s3.example.com --profile work',
  );

  withExamples(
    program
      .command('logout')
      .description("end this profile's session at the gateway and forget it here")
      .action(async (_options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        if (context.storedProfile()?.session === undefined) {
          context.output.result({ profile: context.profileName, loggedOut: true }, () =>
            context.output.line(`Not logged in (profile ${context.profileName}).`),
          );
          return;
        }
        await context.session().logout();
        context.output.result({ profile: context.profileName, loggedOut: true }, () =>
          context.output.line(`Logged out (profile ${context.profileName}).`),
        );
      }),
    's3gw logout',
    's3gw logout --profile work',
  );

  const accept = program
    .command('accept-invitation')
    .description('join an organisation with an invitation token, choosing a password, and log in')
    .argument('<token>', 'the invitation token you were given')
    .requiredOption('--name <name>', 'your display name (ignored when you already have an account)')
    .option(
      '--url <url>',
      `the control plane's URL (default: the profile's, else ${LOCAL_CONTROL_URL})`,
      httpUrl('--url', { stripApiPath: true }),
    )
    .option('--password-stdin', 'read the password from stdin instead of asking')
    .option(
      '--storage-url <url>',
      'the storage endpoint clients use, for credentials --print',
      httpUrl('--storage-url'),
    )
    .option('--region <region>', `the signing region clients use (default: ${DEFAULT_REGION})`)
    .action(
      async (
        token: string,
        options: ConnectionOptions & { name: string; passwordStdin?: boolean },
        command: Command,
      ) => {
        const context = CommandContext.of(command);
        const profile = connectionOf(context, options);
        const password = await readSecret({
          fromStdin: options.passwordStdin === true,
          prompt: 'Password (at least 12 characters; your current one if you already have an account): ',
          what: 'password',
          confirm: true,
        });
        const joined = await acceptInvitation(context.store, context.profileName, profile, networkTransport, {
          token,
          password,
          name: options.name,
        });
        reportLogin(context.output, context.profileName, profile.url, joined);
      },
    );
  withExamples(accept, 's3gw accept-invitation 5Jc2kq... --name "Ada Lovelace" --url https://gw.example.com');

  const reset = program
    .command('reset-password')
    .description('set a new password with a reset token from an owner or admin (ends all your sessions)')
    .argument('<token>', 'the password-reset token you were given')
    .option(
      '--url <url>',
      `the control plane's URL (default: the profile's, else ${LOCAL_CONTROL_URL})`,
      httpUrl('--url', { stripApiPath: true }),
    )
    .option('--password-stdin', 'read the new password from stdin instead of asking')
    .action(async (token: string, options: { url?: string; passwordStdin?: boolean }, command: Command) => {
      const context = CommandContext.of(command);
      const newPassword = await readSecret({
        fromStdin: options.passwordStdin === true,
        prompt: 'New password (at least 12 characters): ',
        what: 'password',
        confirm: true,
      });
      await expectDone(
        context.anonymousApi(options.url).POST('/v1/auth/password-reset', { body: { token, newPassword } }),
      );
      context.output.result({ passwordChanged: true }, () =>
        context.output.line(
          'Password changed; every session of yours has ended. Log in with the new password.',
        ),
      );
    });
  withExamples(reset, 's3gw reset-password Xk3v... --url https://gw.example.com');
}

/**
 * Where the profile points after this login: the given URLs, else the ones it had (for the same
 * control plane), else a local gateway's.
 */
function connectionOf(context: CommandContext, options: ConnectionOptions): Omit<Profile, 'session'> {
  const stored = context.storedProfile();
  const url = context.controlUrl(options.url);
  const same = stored !== null && stored.url === url ? stored : null;
  const storageUrl =
    options.storageUrl ?? same?.storageUrl ?? (url === LOCAL_CONTROL_URL ? LOCAL_STORAGE_URL : undefined);
  return {
    url,
    ...(same?.email === undefined ? {} : { email: same.email }),
    ...(storageUrl === undefined ? {} : { storageUrl }),
    region: options.region ?? same?.region ?? DEFAULT_REGION,
  };
}

function reportLogin(
  output: Output,
  profileName: string,
  url: string,
  { answer, previous }: NewSession,
): void {
  if ('notEnded' in previous) {
    const { url: previousUrl, reason, expiresAt } = previous.notEnded;
    output.note(
      `The session this profile had before could not be ended at ${previousUrl} (${reason}); ` +
        `it stays valid there until ${expiresAt === null ? 'it expires' : when(expiresAt)}.`,
    );
  }
  const { user } = answer;
  output.result({ profile: profileName, url, user }, () => {
    const roles = [user.platformAdmin ? 'platform admin' : null, user.role].filter((role) => role !== null);
    output.line(
      `Logged in to ${url} as ${user.email}${roles.length > 0 ? ` (${roles.join(', ')})` : ''}; profile "${profileName}".`,
    );
  });
}
