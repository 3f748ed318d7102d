import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { expectData, refusalOf, type Schemas } from '../api-client.js';
import { CommandContext, LOCAL_CONTROL_URL } from '../context.js';
import { RefusedError, UsageError } from '../errors.js';
import { withExamples } from '../help.js';
import { httpUrl } from '../option-values.js';
import { cliVersion } from '../version.js';

const URL_HELP = `the control plane's URL (default: the profile's, else ${LOCAL_CONTROL_URL})`;

/** Health, version and the OpenAPI document: no login needed. */
export function registerSystemCommands(program: Command): void {
  withExamples(
    program
      .command('health')
      .description(
        'whether the gateway is ready (its database and object store answer); exit code 1 when not',
      )
      .option('--url <url>', URL_HELP, httpUrl('--url', { stripApiPath: true }))
      .action(async (options: { url?: string }, command: Command) => {
        const context = CommandContext.of(command);
        const answer = await context.anonymousApi(options.url).GET('/v1/health');
        // 503 carries the same report, naming the failing check.
        const report = answer.data ?? (isHealthReport(answer.error) ? answer.error : undefined);
        if (report === undefined) throw refusalOf(answer.response, answer.error);
        context.output.result(report, () => {
          context.output.line(`Gateway: ${report.status}`);
          context.output.table(
            Object.entries(report.checks).map(([name, check]) => ({ name, ...check })),
            [
              { header: 'check', value: (row) => row.name },
              { header: 'status', value: (row) => row.status },
              { header: 'error', value: (row) => row.error },
            ],
            'No checks.',
          );
        });
        if (report.status !== 'ready') {
          throw new RefusedError(
            `the gateway is not ready: ${Object.entries(report.checks)
              .filter(([, check]) => check.status !== 'ok')
              .map(([name, check]) => `${name} ${check.error ?? 'failing'}`)
              .join(', ')}`,
          );
        }
      }),
    's3gw health',
    's3gw health --url https://gw.example.com --json',
  );

  withExamples(
    program
      .command('version')
      .description("this command line's version and the gateway's")
      .option('--url <url>', URL_HELP, httpUrl('--url', { stripApiPath: true }))
      .action(async (options: { url?: string }, command: Command) => {
        const context = CommandContext.of(command);
        const gateway = await expectData(context.anonymousApi(options.url).GET('/v1/version'));
        const cli = cliVersion();
        context.output.result({ cli, gateway }, () =>
          context.output.fields([
            ['s3gw', cli],
            ['Gateway', `${gateway.product} ${gateway.version} (commit ${gateway.commit})`],
            ['API', gateway.apiVersion],
          ]),
        );
      }),
    's3gw version',
  );

  withExamples(
    program
      .command('openapi')
      .description("the gateway's OpenAPI document (JSON), the contract of its control plane")
      .option('--url <url>', URL_HELP, httpUrl('--url', { stripApiPath: true }))
      .option('--output <file>', 'write it to this file instead of stdout')
      .action(async (options: { url?: string; output?: string }, command: Command) => {
        const context = CommandContext.of(command);
        const document = await expectData(context.anonymousApi(options.url).GET('/v1/openapi.json'));
        const text = `${JSON.stringify(document, null, 2)}\n`;
        if (options.output === undefined) {
          context.output.line(text.trimEnd());
          return;
        }
        try {
          writeFileSync(options.output, text);
        } catch (error) {
          throw new UsageError(`cannot write ${options.output}: ${(error as Error).message}`);
        }
        const paths = (document.paths ?? {}) as Record<string, object>;
        const operations = Object.values(paths).flatMap((item) =>
          Object.keys(item).filter((key) => HTTP_METHODS.has(key)),
        ).length;
        context.output.result({ output: options.output, openapi: document.openapi, operations }, () =>
          context.output.line(
            `Wrote the OpenAPI ${document.openapi} document (${operations} operations) to ${options.output}.`,
          ),
        );
      }),
    's3gw openapi > openapi.json',
    's3gw openapi --url https://gw.example.com --output gateway-openapi.json',
  );
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']);

function isHealthReport(body: unknown): body is Schemas['HealthReport'] {
  return typeof body === 'object' && body !== null && 'checks' in body && 'status' in body;
}
