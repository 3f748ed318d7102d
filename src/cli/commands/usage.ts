import type { Command } from 'commander';
import { expectData } from '../api-client.js';
import { CommandContext } from '../context.js';
import { withExamples } from '../help.js';
import { bytes, when } from '../output.js';
import { parseInstant } from '../time-input.js';

/** Metered storage usage of your organisation. */
export function registerUsageCommand(program: Command): void {
  withExamples(
    program
      .command('usage')
      .description('requests and bytes in and out, per bucket and per credential (owners and admins)')
      .option('--from <when>', 'start: a date, a date-time, or how long ago (7d); default 30 days ago')
      .option('--to <when>', 'end (exclusive): a date, a date-time, or how long ago; default now')
      .action(async (options: { from?: string; to?: string }, command: Command) => {
        const context = CommandContext.of(command);
        const query = {
          ...(options.from === undefined ? {} : { from: parseInstant(options.from, '--from', -1) }),
          ...(options.to === undefined ? {} : { to: parseInstant(options.to, '--to', -1) }),
        };
        const report = await expectData(context.api().GET('/v1/organisation/usage', { params: { query } }));
        context.output.result(report, () => {
          const { output } = context;
          output.line(`From ${when(report.from)} to ${when(report.to)}`);
          output.fields([
            ['Requests', report.totals.requests],
            ['Bytes in', bytes(report.totals.bytesIn)],
            ['Bytes out', bytes(report.totals.bytesOut)],
          ]);
          output.line();
          output.table(
            report.byBucket,
            [
              { header: 'bucket', value: (row) => row.bucket },
              { header: 'requests', value: (row) => row.requests },
              { header: 'bytes in', value: (row) => bytes(row.bytesIn) },
              { header: 'bytes out', value: (row) => bytes(row.bytesOut) },
            ],
            'No bucket was used.',
          );
          output.line();
          output.table(
            report.byCredential,
            [
              { header: 'credential', value: (row) => row.accessKeyId || '(anonymous)' },
              { header: 'requests', value: (row) => row.requests },
              { header: 'bytes in', value: (row) => bytes(row.bytesIn) },
              { header: 'bytes out', value: (row) => bytes(row.bytesOut) },
            ],
            'No credential was used.',
          );
        });
      }),
    's3gw usage',
    's3gw usage --from 7d',
    's3gw usage --from 2025-01-01 --to 2025-02-01 --json',
  );
}
