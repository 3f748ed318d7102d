import type { Command } from 'commander';
import { expectData, expectDone } from '../api-client.js';
import { CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { withExamples } from '../help.js';
import { when } from '../output.js';
import { noteNextPage, readPages, withPageOptions, type PageOptions } from '../pages.js';
import { readSecret } from '../password-input.js';

/** Your account: who you are, your sessions, your name and password. */
export function registerAccountCommands(program: Command): void {
  withExamples(
    program
      .command('whoami')
      .description('who this profile is logged in as, where, and in which organisation')
      .action(async (_options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const api = context.api();
        const me = await expectData(api.GET('/v1/me'));
        // A platform admin may belong to no organisation; GET /v1/me/organisation refuses that.
        const organisation =
          me.organisationId === null ? null : await expectData(api.GET('/v1/me/organisation'));
        context.output.result({ ...me, organisation }, () =>
          context.output.fields([
            ['E-mail', me.email],
            ['Name', me.name],
            ['Platform admin', me.platformAdmin],
            ['Organisation', organisation === null ? 'none' : `${organisation.name} (${organisation.id})`],
            ['Role', me.role],
            ...(organisation === null
              ? []
              : ([
                  [
                    'Status',
                    organisation.status === 'suspended'
                      ? `suspended: ${organisation.suspensionReason ?? 'no reason given'}`
                      : organisation.status,
                  ],
                ] as const)),
            ['Gateway', context.session().url],
            ['Profile', context.profileName],
          ]),
        );
      }),
    's3gw whoami',
    's3gw whoami --json',
  );

  const sessions = withExamples(
    program.command('sessions').description('your sessions: list them, end one or all'),
    's3gw sessions',
    's3gw sessions end --all',
  );
  withExamples(
    withPageOptions(
      sessions.command('list', { isDefault: true }).description('your sessions, the current one marked'),
    ).action(async (options: PageOptions, command: Command) => {
      const context = CommandContext.of(command);
      const api = context.api();
      const page = await readPages(
        (query) => expectData(api.GET('/v1/me/sessions', { params: { query } })),
        options,
      );
      context.output.result(page, () => {
        context.output.table(
          page.items,
          [
            { header: 'id', value: (session) => session.id },
            { header: 'current', value: (session) => (session.current ? '*' : '') },
            { header: 'created', value: (session) => when(session.createdAt) },
            { header: 'last used', value: (session) => when(session.lastUsedAt) },
            { header: 'from', value: (session) => session.sourceAddress },
            { header: 'client', value: (session) => session.userAgent },
          ],
          'No sessions.',
        );
        noteNextPage(context.output, page);
      });
    }),
    's3gw sessions list',
  );
  withExamples(
    sessions
      .command('end')
      .description('end one session, or every session of yours with --all (logging out everywhere)')
      .argument('[id]', 'the session to end (see sessions list)')
      .option('--all', 'end every session, this one included')
      .action(async (id: string | undefined, options: { all?: boolean }, command: Command) => {
        const context = CommandContext.of(command);
        if ((id === undefined) === (options.all !== true)) {
          throw new UsageError('name one session id, or give --all');
        }
        const api = context.api();
        if (id === undefined) await expectDone(api.DELETE('/v1/me/sessions'));
        else
          await expectDone(
            api.DELETE('/v1/me/sessions/{sessionId}', { params: { path: { sessionId: id } } }),
          );
        context.output.result({ ended: id ?? 'all' }, () =>
          context.output.line(id === undefined ? 'Every session ended.' : `Session ${id} ended.`),
        );
      }),
    's3gw sessions end 0f3c...',
    's3gw sessions end --all',
  );

  const account = withExamples(
    program.command('account').description('change your display name or password'),
    's3gw account password',
  );
  withExamples(
    account
      .command('rename')
      .description('change your display name')
      .argument('<name>', 'the new display name')
      .action(async (name: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const me = await expectData(context.api().PATCH('/v1/me', { body: { name } }));
        context.output.result(me, () => context.output.line(`Your name is now ${me.name}.`));
      }),
    's3gw account rename "Ada Lovelace"',
  );
  withExamples(
    account
      .command('password')
      .description('change your password (ends your other sessions)')
      .option('--password-stdin', 'read the current and the new password from stdin, one per line')
      .action(async (options: { passwordStdin?: boolean }, command: Command) => {
        const context = CommandContext.of(command);
        let currentPassword: string;
        let newPassword: string;
        if (options.passwordStdin === true) {
          const lines = (await readSecret({ fromStdin: true, prompt: '', what: 'passwords' })).split(/\r?\n/);
          if (lines.length !== 2)
            throw new UsageError('--password-stdin expects two lines: the current and the new password');
          [currentPassword, newPassword] = lines as [string, string];
        } else {
          currentPassword = await readSecret({
            fromStdin: false,
            prompt: 'Current password: ',
            what: 'password',
          });
          newPassword = await readSecret({
            fromStdin: false,
            prompt: 'New password (at least 12 characters): ',
            what: 'password',
            confirm: true,
          });
        }
        await expectDone(context.api().PUT('/v1/me/password', { body: { currentPassword, newPassword } }));
        context.output.result({ passwordChanged: true }, () =>
          context.output.line('Password changed; your other sessions have ended.'),
        );
      }),
    's3gw account password',
  );
}
