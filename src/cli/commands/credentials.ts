import { Option, type Command } from 'commander';
import { expectData, expectDone, type Schemas } from '../api-client.js';
import {
  CLIENT_SETTINGS_FORMATS,
  clientProfileName,
  clientSettings,
  type ClientSettingsFormat,
} from '../client-settings.js';
import { CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { withExamples } from '../help.js';
import { collectList, httpUrl } from '../option-values.js';
import { when } from '../output.js';
import { noteNextPage, readPages, withPageOptions, type PageOptions } from '../pages.js';
import { parseDuration, parseInstant } from '../time-input.js';

type Scope = Schemas['CredentialScopeBody'];
type Credential = Schemas['CredentialView'];

interface ScopeOptions {
  bucket?: string[];
  allBuckets?: boolean;
  readOnly?: boolean;
  readWrite?: boolean;
  methods?: string[];
  prefix?: string[];
}

interface PrintOptions {
  print?: ClientSettingsFormat;
  as?: string;
  storageUrl?: string;
  region?: string;
}

/** Storage credentials: the key pairs S3 clients sign with. */
export function registerCredentialsCommands(program: Command): void {
  const credentials = withExamples(
    program
      .command('credentials')
      .alias('keys')
      .description('storage credentials (access key id and secret) for S3 clients'),
    's3gw credentials list',
    's3gw credentials create laptop --bucket photos --read-write --print aws-profile >> ~/.aws/config',
  );

  withExamples(
    withPrintOptions(
      withScopeOptions(
        credentials
          .command('create')
          .description('create a credential; its secret is shown only now')
          .argument('<name>', 'what it is for, e.g. "ci-uploader"'),
      ).option(
        '--expires <when>',
        'when it stops working: a date, a date-time, or a duration from now (90d)',
      ),
    ).action(
      async (name: string, options: ScopeOptions & PrintOptions & { expires?: string }, command: Command) => {
        const context = CommandContext.of(command);
        const scope = scopeOf(options);
        const target = printTarget(context, options);
        const expiresAt =
          options.expires === undefined ? undefined : parseInstant(options.expires, '--expires', 1);
        const created = await expectData(
          context.api().POST('/v1/credentials', {
            body: { name, scope, ...(expiresAt === undefined ? {} : { expiresAt }) },
          }),
        );
        if (target !== null) {
          printClientSettings(
            context,
            target,
            { accessKeyId: created.accessKeyId, secret: created.secret, name },
            options.as,
          );
          return;
        }
        context.output.result(created, () => {
          context.output.fields([
            ['Access key id', created.accessKeyId],
            ['Secret', created.secret],
            ['Name', created.name],
            ['Scope', describeScope(created.scope)],
            ['Expires', when(created.expiresAt) ?? 'never'],
          ]);
          context.output.note(
            'The secret is shown only now. --print env|aws-profile|rclone|s3cmd writes client settings.',
          );
        });
      },
    ),
    's3gw credentials create photos-reader --bucket photos --read-only --print aws-profile >> ~/.aws/config',
    's3gw credentials create ci --bucket builds --bucket cache --read-write --expires 90d',
    's3gw credentials create uploads-only --all-buckets --methods PUT --print env',
  );

  withExamples(
    withPageOptions(
      credentials
        .command('list', { isDefault: true })
        .description("the organisation's credentials (never a secret)"),
    ).action(async (options: PageOptions, command: Command) => {
      const context = CommandContext.of(command);
      const api = context.api();
      const page = await readPages(
        (query) => expectData(api.GET('/v1/credentials', { params: { query } })),
        options,
      );
      context.output.result(page, () => {
        context.output.table(
          page.items,
          [
            { header: 'access key id', value: (credential) => credential.accessKeyId },
            { header: 'name', value: (credential) => credential.name },
            { header: 'scope', value: (credential) => describeScope(credential.scope) },
            { header: 'state', value: (credential) => credential.state },
            { header: 'expires', value: (credential) => when(credential.expiresAt) ?? 'never' },
            { header: 'last used', value: (credential) => when(credential.lastUsedAt) },
          ],
          'No credentials.',
        );
        noteNextPage(context.output, page);
      });
    }),
    's3gw credentials list',
  );

  withExamples(
    credentials
      .command('show')
      .description('one credential: scope, expiry, state, last use')
      .argument('<access-key-id>')
      .action(async (accessKeyId: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const credential = await expectData(
          context.api().GET('/v1/credentials/{accessKeyId}', { params: { path: { accessKeyId } } }),
        );
        context.output.result(credential, () => printCredential(context, credential));
      }),
    's3gw credentials show GWK1ABCDEFGHIJKLMNOP',
  );

  withExamples(
    credentials
      .command('rename')
      .description("change a credential's name")
      .argument('<access-key-id>')
      .argument('<name>')
      .action(async (accessKeyId: string, name: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const credential = await expectData(
          context
            .api()
            .PATCH('/v1/credentials/{accessKeyId}', { params: { path: { accessKeyId } }, body: { name } }),
        );
        context.output.result(credential, () =>
          context.output.line(`${accessKeyId} is now called ${credential.name}.`),
        );
      }),
    's3gw credentials rename GWK1ABCDEFGHIJKLMNOP ci-uploader',
  );

  withExamples(
    credentials
      .command('expiry')
      .description('change when a credential stops working ("never" for no expiry)')
      .argument('<access-key-id>')
      .argument('<when>', 'a date, a date-time, a duration from now (30d), or "never"')
      .action(async (accessKeyId: string, expiry: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const expiresAt = expiry === 'never' ? null : parseInstant(expiry, '<when>', 1);
        const credential = await expectData(
          context.api().PATCH('/v1/credentials/{accessKeyId}', {
            params: { path: { accessKeyId } },
            body: { expiresAt },
          }),
        );
        context.output.result(credential, () =>
          context.output.line(`${accessKeyId} expires ${when(credential.expiresAt) ?? 'never'}.`),
        );
      }),
    's3gw credentials expiry GWK1ABCDEFGHIJKLMNOP 2030-01-31',
    's3gw credentials expiry GWK1ABCDEFGHIJKLMNOP never',
  );

  withExamples(
    withScopeOptions(
      credentials
        .command('scope')
        .description("replace a credential's scope: which buckets, which methods")
        .argument('<access-key-id>'),
    ).action(async (accessKeyId: string, options: ScopeOptions, command: Command) => {
      const context = CommandContext.of(command);
      const credential = await expectData(
        context.api().PUT('/v1/credentials/{accessKeyId}/scope', {
          params: { path: { accessKeyId } },
          body: scopeOf(options),
        }),
      );
      context.output.result(credential, () =>
        context.output.line(`${accessKeyId} now reaches ${describeScope(credential.scope)}.`),
      );
    }),
    's3gw credentials scope GWK1ABCDEFGHIJKLMNOP --bucket photos --bucket videos --read-only',
  );

  withExamples(
    withPrintOptions(
      credentials
        .command('rotate')
        .description(
          'give a credential a new secret (shown only now); the old one may keep working for a grace period',
        )
        .argument('<access-key-id>')
        .option(
          '--grace <duration>',
          'how long the old secret keeps working (15m, 1h, 7d; at most 7d); default: not at all',
        ),
    ).action(async (accessKeyId: string, options: PrintOptions & { grace?: string }, command: Command) => {
      const context = CommandContext.of(command);
      const gracePeriodSeconds =
        options.grace === undefined ? undefined : parseDuration(options.grace, '--grace');
      const target = printTarget(context, options);
      const api = context.api();
      const rotated = await expectData(
        api.POST('/v1/credentials/{accessKeyId}/rotate', {
          params: { path: { accessKeyId } },
          body: gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds },
        }),
      );
      if (target !== null) {
        const credential = await expectData(
          api.GET('/v1/credentials/{accessKeyId}', { params: { path: { accessKeyId } } }),
        );
        printClientSettings(
          context,
          target,
          { accessKeyId, secret: rotated.secret, name: credential.name },
          options.as,
        );
        return;
      }
      context.output.result(rotated, () => {
        context.output.fields([
          ['Access key id', rotated.accessKeyId],
          ['New secret', rotated.secret],
          ['Old secret works until', when(rotated.previousSecretValidUntil) ?? 'no longer'],
        ]);
        context.output.note('The new secret is shown only now.');
      });
    }),
    's3gw credentials rotate GWK1ABCDEFGHIJKLMNOP --grace 1h',
    's3gw credentials rotate GWK1ABCDEFGHIJKLMNOP --print env',
  );

  withExamples(
    credentials
      .command('revoke')
      .description('delete a credential: storage answers InvalidAccessKeyId from now on')
      .argument('<access-key-id>')
      .action(async (accessKeyId: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        await expectDone(
          context.api().DELETE('/v1/credentials/{accessKeyId}', { params: { path: { accessKeyId } } }),
        );
        context.output.result({ revoked: accessKeyId }, () => context.output.line(`Revoked ${accessKeyId}.`));
      }),
    's3gw credentials revoke GWK1ABCDEFGHIJKLMNOP',
  );
}

function withScopeOptions(command: Command): Command {
  return command
    .option('--bucket <names>', 'a bucket it reaches (repeat, or separate with commas)', collectList)
    .option('--all-buckets', "every bucket of the organisation, today's and future ones")
    .option('--read-only', 'GET and HEAD')
    .option('--read-write', 'every object method')
    .option('--methods <methods>', 'exactly these HTTP methods, e.g. GET,PUT', collectList)
    .option(
      '--prefix <bucket=prefix>',
      'limit a bucket to keys under this prefix, e.g. photos=users/42/ (repeat for more)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
}

/** `--prefix photos=users/42/` options as the scope's prefixes per bucket. */
function prefixesOf(options: ScopeOptions): Record<string, string[]> | undefined {
  if (options.prefix === undefined) return undefined;
  const prefixes: Record<string, string[]> = {};
  for (const option of options.prefix) {
    const equals = option.indexOf('=');
    if (equals <= 0 || equals === option.length - 1) {
      throw new UsageError(`--prefix ${option}: expected <bucket>=<prefix>, e.g. photos=users/42/`);
    }
    const bucket = option.slice(0, equals);
    (prefixes[bucket] ??= []).push(option.slice(equals + 1));
  }
  return prefixes;
}

function withPrintOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--print <format>',
        'print settings for a client instead: the secret ends up only there',
      ).choices(CLIENT_SETTINGS_FORMATS),
    )
    .option('--as <name>', "the aws profile's or rclone remote's name (default: from the credential's name)")
    .option(
      '--storage-url <url>',
      "the storage endpoint clients use (default: the profile's, set at login)",
      httpUrl('--storage-url'),
    )
    .option('--region <region>', "the signing region (default: the profile's, set at login)");
}

export function scopeOf(options: ScopeOptions): Scope {
  const levels = [options.readOnly === true, options.readWrite === true, options.methods !== undefined];
  if (levels.filter(Boolean).length !== 1) {
    throw new UsageError('give exactly one of --read-only, --read-write and --methods');
  }
  const named = options.bucket ?? [];
  if (named.length > 0 === (options.allBuckets === true)) {
    throw new UsageError('give --bucket (one or more) or --all-buckets');
  }
  const buckets = options.allBuckets === true ? ['*'] : named;
  const prefixes = prefixesOf(options);
  const limited = prefixes === undefined ? {} : { prefixes };
  if (options.methods !== undefined)
    return { buckets, methods: options.methods.map((method) => method.toUpperCase()), ...limited };
  return { buckets, level: options.readOnly === true ? 'read-only' : 'read-write', ...limited };
}

export function describeScope(scope: Scope): string {
  const buckets = scope.buckets.includes('*') ? 'all buckets' : scope.buckets.join(', ');
  const access = scope.level ?? (scope.methods ?? []).join(',');
  const limits = Object.entries(scope.prefixes ?? {}).map(
    ([bucket, prefixes]) => `${bucket} only under ${prefixes.join(', ')}`,
  );
  return `${access} on ${buckets}${limits.length === 0 ? '' : ` (${limits.join('; ')})`}`;
}

function printCredential(context: CommandContext, credential: Credential): void {
  context.output.fields([
    ['Access key id', credential.accessKeyId],
    ['Name', credential.name],
    ['Scope', describeScope(credential.scope)],
    ['State', credential.state],
    ['Expires', when(credential.expiresAt) ?? 'never'],
    ['Created', when(credential.createdAt)],
    ['Last used', when(credential.lastUsedAt) ?? 'never'],
    ['Old secret works until', when(credential.previousSecretValidUntil)],
  ]);
}

/** Where --print points clients, checked before anything is created or rotated. */
function printTarget(
  context: CommandContext,
  options: PrintOptions,
): { format: ClientSettingsFormat; storageUrl: string; region: string } | null {
  if (options.print === undefined) return null;
  if (context.output.json) throw new UsageError('--print and --json exclude each other');
  const profile = context.session().profile;
  const storageUrl = options.storageUrl ?? profile.storageUrl;
  const region = options.region ?? profile.region;
  if (storageUrl === undefined || region === undefined) {
    throw new UsageError(
      `--print needs the storage endpoint clients use: give --storage-url, or log in with --storage-url to keep it in the profile`,
    );
  }
  return { format: options.print, storageUrl, region };
}

function printClientSettings(
  context: CommandContext,
  target: NonNullable<ReturnType<typeof printTarget>>,
  key: { accessKeyId: string; secret: string; name: string },
  as: string | undefined,
): void {
  const settings = clientSettings(target.format, {
    ...key,
    storageUrl: target.storageUrl,
    region: target.region,
    name: as ?? clientProfileName(key.name),
  });
  context.output.line(settings.text.trimEnd());
  context.output.note(`${settings.hint} The secret is shown only now.`);
}
