import type { Command } from 'commander';
import { expectData, expectDone } from '../api-client.js';
import { CommandContext } from '../context.js';
import { readCorsRules } from '../cors-file.js';
import { withExamples } from '../help.js';

/** A bucket's CORS rules, which only the control plane sets. */
export function registerCorsCommands(buckets: Command): void {
  const cors = withExamples(
    buckets.command('cors').description("a bucket's CORS rules, for browsers on other origins"),
    's3gw buckets cors set photos cors.yaml',
  );

  withExamples(
    cors
      .command('set')
      .description('replace the rules with those of a JSON or YAML file ("-" reads stdin)')
      .argument('<bucket>')
      .argument(
        '<file>',
        '{rules: [...]} or a list of rules: allowedOrigins, allowedMethods, allowedHeaders, exposeHeaders, maxAgeSeconds',
      )
      .action(async (bucket: string, file: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const rules = await readCorsRules(file);
        const stored = await expectData(
          context.api().PUT('/v1/buckets/{bucket}/cors', { params: { path: { bucket } }, body: rules }),
        );
        context.output.result(stored, () =>
          context.output.line(`${bucket} has ${stored.rules.length} CORS rule(s).`),
        );
      }),
    's3gw buckets cors set photos cors.yaml',
    `printf 'rules:\\n  - allowedOrigins: [https://app.example.com]\\n    allowedMethods: [GET, PUT]\\n' | s3gw buckets cors set photos -`,
  );

  withExamples(
    cors
      .command('get')
      .description("the bucket's rules")
      .argument('<bucket>')
      .action(async (bucket: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        const stored = await expectData(
          context.api().GET('/v1/buckets/{bucket}/cors', { params: { path: { bucket } } }),
        );
        context.output.result(stored, () =>
          context.output.table(
            stored.rules,
            [
              { header: 'origins', value: (rule) => rule.allowedOrigins.join(' ') },
              { header: 'methods', value: (rule) => rule.allowedMethods.join(',') },
              { header: 'headers', value: (rule) => rule.allowedHeaders?.join(',') },
              { header: 'expose', value: (rule) => rule.exposeHeaders?.join(',') },
              { header: 'max age', value: (rule) => rule.maxAgeSeconds },
            ],
            `${bucket} has no CORS rules.`,
          ),
        );
      }),
    's3gw buckets cors get photos',
    's3gw buckets cors get photos --json > cors.json',
  );

  withExamples(
    cors
      .command('delete')
      .description('remove every rule of the bucket')
      .argument('<bucket>')
      .action(async (bucket: string, _options: unknown, command: Command) => {
        const context = CommandContext.of(command);
        await expectDone(context.api().DELETE('/v1/buckets/{bucket}/cors', { params: { path: { bucket } } }));
        context.output.result({ bucket, rules: [] }, () =>
          context.output.line(`${bucket} has no CORS rules now.`),
        );
      }),
    's3gw buckets cors delete photos',
  );
}
