import { Option, type Command } from 'commander';
import { expectData, expectDone, type ControlPlane, type Schemas } from '../api-client.js';
import { CommandContext } from '../context.js';
import { RefusedError, UsageError } from '../errors.js';
import { withExamples } from '../help.js';
import { describeLimit, limitKeys, parseLimitChanges, type LimitKind } from '../limit-changes.js';
import { when, type Output } from '../output.js';
import { noteNextPage, readPages, withPageOptions, type PageOptions } from '../pages.js';
import { findOrganisation } from './organisations.js';

type Role = Schemas['Role'];
/** Every role, in the order people read them; `satisfies` fails the type check when the API's change. */
const ROLES = Object.keys({ owner: true, admin: true, member: true } satisfies Record<Role, true>) as Role[];
type SettingsChange = NonNullable<Schemas['UpdateOrganisationRequest']['settings']>;

/** The limits `organisation limits` takes, exactly the API's fields (a renamed one fails the type check). */
const ORGANISATION_LIMITS = {
  maxBytes: 'bytes',
  maxObjects: 'count',
  requestsPerSecond: 'rate',
  requestBurst: 'count',
  credentialRequestsPerSecond: 'rate',
  credentialRequestBurst: 'count',
} as const satisfies Record<keyof Schemas['OrganisationLimitsUpdate'], LimitKind>;

/** Your organisation: settings, members and the audit log. */
export function registerOrganisationCommands(program: Command): void {
  const organisation = withExamples(
    program
      .command('organisation')
      .alias('org')
      .description('your organisation: its settings, members and audit log'),
    's3gw organisation members',
    's3gw organisation invite ada@example.com --role admin',
  );

  withExamples(
    organisation
      .command('show', { isDefault: true })
      .description('name, status (and why it is suspended) and settings')
      .action(async (_options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const shown = await expectData(context.api().GET('/v1/organisation'));
        context.output.result(shown, () => printOrganisation(context.output, shown));
      }),
    's3gw organisation show',
  );

  withExamples(
    organisation
      .command('rename')
      .description("change the organisation's name (owner or admin)")
      .argument('<name>', 'the new name')
      .action(async (name: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const changed = await expectData(context.api().PATCH('/v1/organisation', { body: { name } }));
        context.output.result(changed, () =>
          context.output.line(`The organisation is now called ${changed.name}.`),
        );
      }),
    's3gw organisation rename "Acme Research"',
  );

  withExamples(
    organisation
      .command('settings')
      .description(
        'show the settings, or change them: KEY=VALUE sets (true/false and numbers are typed), KEY= removes',
      )
      .argument('[changes...]', 'KEY=VALUE or KEY= (owner or admin)')
      .action(async (changes: string[], _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const api = context.api();
        const shown =
          changes.length === 0
            ? await expectData(api.GET('/v1/organisation'))
            : await expectData(api.PATCH('/v1/organisation', { body: { settings: parseSettings(changes) } }));
        context.output.result(shown.settings, () => {
          const entries = Object.entries(shown.settings);
          if (entries.length === 0) context.output.line('No settings.');
          else context.output.fields(entries.map(([key, value]) => [key, String(value)] as const));
        });
      }),
    's3gw organisation settings',
    's3gw organisation settings retention_days=30 contact=ops@example.com',
    's3gw organisation settings contact=',
  );

  withExamples(
    organisation
      .command('limits')
      .description(
        'show the storage quota and request rates, or change them: KEY=VALUE, KEY=none removes (quota and organisation rate: platform admins; credential rate: owners and admins)',
      )
      .argument('[changes...]', `KEY=VALUE with KEY one of ${limitKeys(ORGANISATION_LIMITS).join(', ')}`)
      .option('--organisation <id-or-name>', "platform admins: another organisation's limits")
      .action(async (changes: string[], options: { organisation?: string }, command: Command) => {
        const context = CommandContext.of(command);
        const api = context.api();
        const other =
          options.organisation === undefined ? undefined : await findOrganisation(api, options.organisation);
        const shown =
          changes.length === 0
            ? (other ?? (await expectData(api.GET('/v1/organisation'))))
            : await expectData(
                api.PATCH('/v1/organisation', {
                  ...(other === undefined ? {} : { params: { query: { organisationId: other.id } } }),
                  body: { limits: parseLimitChanges(changes, ORGANISATION_LIMITS) },
                }),
              );
        context.output.result(shown.limits, () =>
          context.output.fields(
            limitKeys(ORGANISATION_LIMITS).map((key) => [key, describeLimit(shown.limits[key])] as const),
          ),
        );
      }),
    's3gw organisation limits',
    's3gw organisation limits credentialRequestsPerSecond=50 credentialRequestBurst=100',
    's3gw organisation limits --organisation Acme',
    's3gw organisation limits maxBytes=500GiB maxObjects=none --organisation Acme',
  );

  withExamples(
    withPageOptions(organisation.command('members').description('members and their roles')).action(
      async (options: PageOptions, command: Command) => {
        const context = CommandContext.of(command);
        const api = context.api();
        const page = await readPages(
          (query) => expectData(api.GET('/v1/organisation/members', { params: { query } })),
          options,
        );
        context.output.result(page, () => {
          context.output.table(
            page.items,
            [
              { header: 'user id', value: (member) => member.userId },
              { header: 'e-mail', value: (member) => member.email },
              { header: 'name', value: (member) => member.name },
              { header: 'role', value: (member) => member.role },
              { header: 'joined', value: (member) => when(member.joinedAt) },
            ],
            'No members.',
          );
          noteNextPage(context.output, page);
        });
      },
    ),
    's3gw organisation members',
  );

  withExamples(
    organisation
      .command('invite')
      .description('invite someone by e-mail; prints the invitation token (only now) for them to accept')
      .argument('<email>', 'their e-mail address')
      .addOption(new Option('--role <role>', 'their role').choices(ROLES).default('member'))
      .action(async (email: string, options: { role: Role }, command: Command) => {
        const context = CommandContext.of(command);
        const answer = await expectData(
          context.api().POST('/v1/organisation/members', { body: { email, role: options.role } }),
        );
        context.output.result(answer, () => {
          context.output.fields([
            ['Invitation token', answer.invitation.token],
            ['Expires', when(answer.invitation.expiresAt)],
          ]);
          context.output.note(
            `The token is shown only now. ${email} joins with: s3gw accept-invitation <token> --name "<their name>" --url ${context.session().url}`,
          );
        });
      }),
    's3gw organisation invite ada@example.com --role admin',
  );

  withExamples(
    organisation
      .command('role')
      .description("change a member's role (the last owner keeps theirs)")
      .argument('<member>', 'their e-mail address or user id')
      .argument('<role>', ROLES.join(', '))
      .action(async (member: string, role: string, _options: unknown, command: Command) => {
        if (!ROLES.includes(role as Role))
          throw new UsageError(`the role must be one of ${ROLES.join(', ')}, not "${role}"`);
        const context = CommandContext.of(command);
        const api = context.api();
        const userId = await memberId(api, member);
        const changed = await expectData(
          api.PATCH('/v1/organisation/members/{userId}', {
            params: { path: { userId } },
            body: { role: role as Role },
          }),
        );
        context.output.result(changed, () => context.output.line(`${changed.email} is now ${changed.role}.`));
      }),
    's3gw organisation role ada@example.com owner',
  );

  withExamples(
    organisation
      .command('remove')
      .description('remove a member and end their sessions (the last owner stays)')
      .argument('<member>', 'their e-mail address or user id')
      .action(async (member: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const api = context.api();
        const userId = await memberId(api, member);
        await expectDone(api.DELETE('/v1/organisation/members/{userId}', { params: { path: { userId } } }));
        context.output.result({ removed: userId }, () => context.output.line(`Removed ${member}.`));
      }),
    's3gw organisation remove bob@example.com',
  );

  withExamples(
    organisation
      .command('password-reset')
      .description('issue a one-time password-reset token for a member (shown only now)')
      .argument('<member>', 'their e-mail address or user id')
      .action(async (member: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const api = context.api();
        const userId = await memberId(api, member);
        const issued = await expectData(
          api.POST('/v1/organisation/members/{userId}/password-reset', { params: { path: { userId } } }),
        );
        context.output.result(issued, () => {
          context.output.fields([
            ['Reset token', issued.token],
            ['Expires', when(issued.expiresAt)],
          ]);
          context.output.note(
            `The token is shown only now. ${member} sets a new password with: s3gw reset-password <token> --url ${context.session().url}`,
          );
        });
      }),
    's3gw organisation password-reset bob@example.com',
  );

  withExamples(
    withPageOptions(
      organisation.command('audit-log').description('who did what in the control plane, newest first'),
    ).action(async (options: PageOptions, command: Command) => {
      const context = CommandContext.of(command);
      const api = context.api();
      const page = await readPages(
        (query) => expectData(api.GET('/v1/organisation/audit-log', { params: { query } })),
        options.limit === undefined && options.cursor === undefined ? { limit: 50 } : options,
      );
      context.output.result(page, () => {
        context.output.table(
          page.items,
          [
            { header: 'time', value: (entry) => when(entry.time) },
            { header: 'actor', value: (entry) => entry.actor.email },
            { header: 'action', value: (entry) => entry.action },
            { header: 'target', value: (entry) => entry.target },
            { header: 'from', value: (entry) => entry.sourceAddress },
          ],
          'Nothing recorded yet.',
        );
        noteNextPage(context.output, page);
      });
    }),
    's3gw organisation audit-log',
    's3gw organisation audit-log --limit 200 --json',
  );
}

function printOrganisation(output: Output, organisation: Schemas['OrganisationView']): void {
  output.fields([
    ['Name', organisation.name],
    ['Id', organisation.id],
    ['Status', organisation.status],
    ...(organisation.status === 'suspended'
      ? ([
          ['Suspended', when(organisation.suspendedAt)],
          ['Reason', organisation.suspensionReason],
        ] as const)
      : []),
    ['Created', when(organisation.createdAt)],
    [
      'Settings',
      Object.entries(organisation.settings)
        .map(([key, value]) => `${key}=${String(value)}`)
        .join(', '),
    ],
  ]);
}

/** KEY=VALUE pairs as a settings change: "true"/"false" and numbers typed, an empty value removes. */
export function parseSettings(changes: readonly string[]): SettingsChange {
  const settings: SettingsChange = {};
  for (const change of changes) {
    const equals = change.indexOf('=');
    if (equals <= 0) throw new UsageError(`a setting is KEY=VALUE (or KEY= to remove it), not "${change}"`);
    const key = change.slice(0, equals);
    const raw = change.slice(equals + 1);
    settings[key] =
      raw === ''
        ? null
        : raw === 'true' || raw === 'false'
          ? raw === 'true'
          : /^-?\d+(\.\d+)?$/.test(raw)
            ? Number(raw)
            : raw;
  }
  return settings;
}

/** A member named by e-mail address (looked up) or by user id (as given). */
async function memberId(api: ControlPlane, member: string): Promise<string> {
  if (!member.includes('@')) return member;
  const members = await readPages(
    (query) => expectData(api.GET('/v1/organisation/members', { params: { query } })),
    {},
  );
  const found = members.items.find((candidate) => candidate.email.toLowerCase() === member.toLowerCase());
  if (found === undefined) throw new RefusedError(`${member} is not a member of your organisation`);
  return found.userId;
}
