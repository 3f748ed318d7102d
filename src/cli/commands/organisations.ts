import type { Command } from 'commander';
import { expectData, type ControlPlane, type Schemas } from '../api-client.js';
import { CommandContext } from '../context.js';
import { RefusedError } from '../errors.js';
import { withExamples } from '../help.js';
import { when } from '../output.js';
import { noteNextPage, readPages, withPageOptions, type PageOptions } from '../pages.js';

/** Every organisation of the gateway, for platform admins. */
export function registerOrganisationsCommands(program: Command): void {
  const organisations = withExamples(
    program
      .command('organisations')
      .alias('orgs')
      .description('platform admins: every organisation, creating, suspending and reinstating them'),
    's3gw organisations list',
    's3gw organisations create "Acme" --owner ada@acme.example',
  );

  withExamples(
    withPageOptions(
      organisations.command('list', { isDefault: true }).description('every organisation with its status'),
    ).action(async (options: PageOptions, command: Command) => {
      const context = CommandContext.of(command);
      const api = context.api();
      const page = await readPages(
        (query) => expectData(api.GET('/v1/organisations', { params: { query } })),
        options,
      );
      context.output.result(page, () => {
        context.output.table(
          page.items,
          [
            { header: 'id', value: (organisation) => organisation.id },
            { header: 'name', value: (organisation) => organisation.name },
            { header: 'status', value: (organisation) => organisation.status },
            { header: 'created', value: (organisation) => when(organisation.createdAt) },
            { header: 'suspension reason', value: (organisation) => organisation.suspensionReason },
          ],
          'No organisations.',
        );
        noteNextPage(context.output, page);
      });
    }),
    's3gw organisations list',
  );

  withExamples(
    organisations
      .command('create')
      .description(
        'create an organisation and invite its first owner (the invitation token is shown only now)',
      )
      .argument('<name>', "the organisation's name")
      .requiredOption('--owner <email>', "the first owner's e-mail address")
      .action(async (name: string, options: { owner: string }, command: Command) => {
        const context = CommandContext.of(command);
        const created = await expectData(
          context.api().POST('/v1/organisations', { body: { name, ownerEmail: options.owner } }),
        );
        context.output.result(created, () => {
          context.output.fields([
            ['Organisation', `${created.organisation.name} (${created.organisation.id})`],
            ['Owner invitation token', created.invitation.token],
            ['Expires', when(created.invitation.expiresAt)],
          ]);
          context.output.note(
            `The token is shown only now. ${options.owner} joins with: s3gw accept-invitation <token> --name "<their name>" --url ${context.session().url}`,
          );
        });
      }),
    's3gw organisations create "Acme" --owner ada@acme.example',
  );

  withExamples(
    organisations
      .command('suspend')
      .description(
        'suspend an organisation: storage refuses its keys with AccountProblem; nothing is deleted',
      )
      .argument('<organisation>', 'its id or name')
      .requiredOption('--reason <reason>', 'why (shown to the organisation)')
      .action(async (organisation: string, options: { reason: string }, command: Command) => {
        const context = CommandContext.of(command);
        const api = context.api();
        const orgId = await organisationId(api, organisation);
        const suspended = await expectData(
          api.POST('/v1/organisations/{orgId}/suspend', {
            params: { path: { orgId } },
            body: { reason: options.reason },
          }),
        );
        context.output.result(suspended, () =>
          context.output.line(
            `${suspended.name} is suspended: ${suspended.suspensionReason ?? options.reason}`,
          ),
        );
      }),
    's3gw organisations suspend Acme --reason "invoice 2024-117 unpaid"',
  );

  withExamples(
    organisations
      .command('reinstate')
      .description('make a suspended organisation active again')
      .argument('<organisation>', 'its id or name')
      .action(async (organisation: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const api = context.api();
        const orgId = await organisationId(api, organisation);
        const reinstated = await expectData(
          api.POST('/v1/organisations/{orgId}/reinstate', { params: { path: { orgId } } }),
        );
        context.output.result(reinstated, () =>
          context.output.line(`${reinstated.name} is ${reinstated.status}.`),
        );
      }),
    's3gw organisations reinstate Acme',
  );
}

/** An organisation named by id or by name (names are unique), for platform admins. */
export async function findOrganisation(
  api: ControlPlane,
  given: string,
): Promise<Schemas['OrganisationView']> {
  const all = await readPages((query) => expectData(api.GET('/v1/organisations', { params: { query } })), {});
  const found =
    all.items.find((organisation) => organisation.id === given) ??
    all.items.find((organisation) => organisation.name === given);
  if (found === undefined) throw new RefusedError(`no organisation has the id or name "${given}"`);
  return found;
}

async function organisationId(api: ControlPlane, given: string): Promise<string> {
  return (await findOrganisation(api, given)).id;
}
