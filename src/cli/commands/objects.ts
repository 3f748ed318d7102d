import { Option, type Command } from 'commander';
import { expectData } from '../api-client.js';
import { CommandContext } from '../context.js';
import { RefusedError } from '../errors.js';
import { withExamples } from '../help.js';
import { positiveInteger } from '../option-values.js';
import { bytes, when } from '../output.js';

/** The control plane's view of a bucket's objects: listing and deleting. */
export function registerObjectsCommands(buckets: Command): void {
  const objects = withExamples(
    buckets.command('objects').description("list and delete a bucket's objects"),
    's3gw buckets objects list photos --prefix 2024/',
  );

  withExamples(
    objects
      .command('list', { isDefault: true })
      .description('the objects of a bucket, a page at a time')
      .argument('<bucket>')
      .option('--prefix <prefix>', 'only keys starting with this')
      .option('--delimiter <delimiter>', 'group keys up to this character into "folders", e.g. /')
      .addOption(
        new Option('--limit <n>', 'at most this many (default 1000)').argParser(
          positiveInteger('--limit', 1000),
        ),
      )
      .option('--cursor <cursor>', 'continue after the page that named this cursor')
      .action(
        async (
          bucket: string,
          options: { prefix?: string; delimiter?: string; limit?: number; cursor?: string },
          command: Command,
        ) => {
          const context = CommandContext.of(command);
          const listing = await expectData(
            context.api().GET('/v1/buckets/{bucket}/objects', {
              params: { path: { bucket }, query: { ...options } },
            }),
          );
          context.output.result(listing, () => {
            for (const prefix of listing.commonPrefixes) context.output.line(`${prefix} (folder)`);
            context.output.table(
              listing.objects,
              [
                { header: 'key', value: (object) => object.key },
                { header: 'size', value: (object) => bytes(object.size) },
                { header: 'last modified', value: (object) => when(object.lastModified) },
              ],
              listing.commonPrefixes.length === 0 ? 'No objects.' : '',
            );
            if (listing.nextCursor !== null)
              context.output.note(`more: repeat with --cursor ${listing.nextCursor}`);
          });
        },
      ),
    's3gw buckets objects list photos',
    's3gw buckets objects list photos --prefix 2024/ --delimiter /',
  );

  withExamples(
    objects
      .command('delete')
      .description('delete objects by key (up to 1000); exit code 1 when any was not deleted')
      .argument('<bucket>')
      .argument('<keys...>')
      .action(async (bucket: string, keys: string[], _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const answer = await expectData(
          context
            .api()
            .POST('/v1/buckets/{bucket}/objects/delete', { params: { path: { bucket } }, body: { keys } }),
        );
        context.output.result(answer, () =>
          context.output.table(
            answer.results,
            [
              { header: 'key', value: (result) => result.key },
              { header: 'deleted', value: (result) => result.deleted },
              {
                header: 'error',
                value: (result) => [result.errorCode, result.errorMessage].filter(Boolean).join(': '),
              },
            ],
            'Nothing to delete.',
          ),
        );
        const failed = answer.results.filter((result) => !result.deleted);
        if (failed.length > 0) {
          throw new RefusedError(`${failed.length} of ${answer.results.length} object(s) were not deleted`);
        }
      }),
    's3gw buckets objects delete photos 2024/old.jpg 2024/older.jpg',
  );
}
