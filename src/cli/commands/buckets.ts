import type { Command } from 'commander';
import { expectData, expectDone, type Schemas } from '../api-client.js';
import { CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { withExamples } from '../help.js';
import { describeLimit, limitKeys, parseLimitChanges, type LimitKind } from '../limit-changes.js';
import { when } from '../output.js';
import { noteNextPage, readPages, withPageOptions, type PageOptions } from '../pages.js';
import { registerCorsCommands } from './cors.js';
import { registerObjectsCommands } from './objects.js';

/** The quota `buckets quota` takes, exactly the API's fields (a renamed one fails the type check). */
const BUCKET_QUOTA = { maxBytes: 'bytes', maxObjects: 'count' } as const satisfies Record<
  keyof Schemas['BucketQuotaUpdate'],
  LimitKind
>;

/** Buckets, with their CORS rules and objects as sub-groups. */
export function registerBucketsCommands(program: Command): void {
  const buckets = withExamples(
    program.command('buckets').alias('bucket').description('buckets, their CORS rules and objects'),
    's3gw buckets create photos',
    's3gw buckets objects list photos',
  );

  withExamples(
    buckets
      .command('create')
      .description('create a bucket (names are global: a taken name is refused)')
      .argument('<name>', '3-63 lower-case letters, digits, dots and hyphens')
      .option('--public', 'allow unsigned reads by anyone')
      .action(async (name: string, options: { public?: boolean }, command: Command) => {
        const context = CommandContext.of(command);
        const created = await expectData(
          context.api().POST('/v1/buckets', { body: { name, public: options.public === true } }),
        );
        context.output.result(created, () =>
          context.output.line(`Created bucket ${created.name}${created.public ? ' (public)' : ''}.`),
        );
      }),
    's3gw buckets create photos',
    's3gw buckets create website-assets --public',
  );

  withExamples(
    withPageOptions(
      buckets.command('list', { isDefault: true }).description("your organisation's buckets"),
    ).action(async (options: PageOptions, command: Command) => {
      const context = CommandContext.of(command);
      const api = context.api();
      const page = await readPages(
        (query) => expectData(api.GET('/v1/buckets', { params: { query } })),
        options,
      );
      context.output.result(page, () => {
        context.output.table(
          page.items,
          [
            { header: 'name', value: (bucket) => bucket.name },
            { header: 'public', value: (bucket) => bucket.public },
            { header: 'created', value: (bucket) => when(bucket.createdAt) },
          ],
          'No buckets yet: s3gw buckets create <name>',
        );
        noteNextPage(context.output, page);
      });
    }),
    's3gw buckets list',
  );

  withExamples(
    buckets
      .command('show')
      .description('one bucket: public or not, when created, its CORS rules in short')
      .argument('<name>')
      .action(async (name: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const bucket = await expectData(
          context.api().GET('/v1/buckets/{bucket}', { params: { path: { bucket: name } } }),
        );
        context.output.result(bucket, () =>
          context.output.fields([
            ['Name', bucket.name],
            ['Public', bucket.public],
            ['Created', when(bucket.createdAt)],
            ['Updated', when(bucket.updatedAt)],
            [
              'CORS',
              bucket.cors.ruleCount === 0
                ? 'no rules'
                : `${bucket.cors.ruleCount} rule(s) for ${bucket.cors.allowedOrigins.join(', ')}`,
            ],
          ]),
        );
      }),
    's3gw buckets show photos',
  );

  withExamples(
    buckets
      .command('public')
      .description('allow (on) or stop (off) unsigned reads of a bucket')
      .argument('<name>')
      .argument('<on|off>')
      .action(async (name: string, state: string, _options: unknown, command: Command) => {
        if (state !== 'on' && state !== 'off') throw new UsageError(`say on or off, not "${state}"`);
        const context = CommandContext.of(command);
        const bucket = await expectData(
          context.api().PATCH('/v1/buckets/{bucket}', {
            params: { path: { bucket: name } },
            body: { public: state === 'on' },
          }),
        );
        context.output.result(bucket, () =>
          context.output.line(
            `${bucket.name} is ${bucket.public ? 'public: anyone may read it' : 'private'}.`,
          ),
        );
      }),
    's3gw buckets public website-assets on',
    's3gw buckets public website-assets off',
  );

  withExamples(
    buckets
      .command('quota')
      .description(
        "show a bucket's own storage quota, or change it (within the organisation's): KEY=VALUE, KEY=none removes",
      )
      .argument('<name>')
      .argument('[changes...]', 'maxBytes=SIZE (100GiB, 500MB, bytes) and/or maxObjects=COUNT')
      .action(async (name: string, changes: string[], _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const api = context.api();
        const bucket =
          changes.length === 0
            ? await expectData(api.GET('/v1/buckets/{bucket}', { params: { path: { bucket: name } } }))
            : await expectData(
                api.PATCH('/v1/buckets/{bucket}', {
                  params: { path: { bucket: name } },
                  body: { quota: parseLimitChanges(changes, BUCKET_QUOTA) },
                }),
              );
        context.output.result(bucket.quota, () =>
          context.output.fields(
            limitKeys(BUCKET_QUOTA).map((key) => [key, describeLimit(bucket.quota[key])] as const),
          ),
        );
      }),
    's3gw buckets quota photos',
    's3gw buckets quota photos maxBytes=10GiB maxObjects=100000',
    's3gw buckets quota photos maxBytes=none',
  );

  withExamples(
    buckets
      .command('delete')
      .description('delete an empty bucket')
      .argument('<name>')
      .action(async (name: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        await expectDone(
          context.api().DELETE('/v1/buckets/{bucket}', { params: { path: { bucket: name } } }),
        );
        context.output.result({ deleted: name }, () => context.output.line(`Deleted bucket ${name}.`));
      }),
    's3gw buckets delete old-photos',
  );

  registerCorsCommands(buckets);
  registerObjectsCommands(buckets);
}
