import type { Command } from 'commander';
import { expectData, type Schemas } from '../api-client.js';
import { CommandContext } from '../context.js';
import { withExamples } from '../help.js';
import { bytes, when, type Output } from '../output.js';
import { parseInstant } from '../time-input.js';
import { findOrganisation } from './organisations.js';

type UsageReport = Schemas['UsageReport'];

/** Metered traffic, stored data against the quotas, and the request rates of an organisation. */
export function registerUsageCommand(program: Command): void {
  withExamples(
    program
      .command('usage')
      .description(
        'requests and bytes in and out per bucket and per credential, storage held against the quotas, ' +
          'and throttled requests (owners and admins)',
      )
      .option('--from <when>', 'start: a date, a date-time, or how long ago (7d); default 30 days ago')
      .option('--to <when>', 'end (exclusive): a date, a date-time, or how long ago; default now')
      .option('--organisation <id-or-name>', "platform admins: another organisation's usage")
      .action(async (options: { from?: string; to?: string; organisation?: string }, command: Command) => {
        const context = CommandContext.of(command);
        const api = context.api();
        const organisationId =
          options.organisation === undefined
            ? undefined
            : (await findOrganisation(api, options.organisation)).id;
        const query = {
          ...(options.from === undefined ? {} : { from: parseInstant(options.from, '--from', -1) }),
          ...(options.to === undefined ? {} : { to: parseInstant(options.to, '--to', -1) }),
          ...(organisationId === undefined ? {} : { organisationId }),
        };
        const report = await expectData(api.GET('/v1/organisation/usage', { params: { query } }));
        context.output.result(report, () => printUsage(context.output, report));
      }),
    's3gw usage',
    's3gw usage --from 7d',
    's3gw usage --from 2025-01-01 --to 2025-02-01 --json',
    's3gw usage --organisation Acme',
  );
}

function printUsage(output: Output, report: UsageReport): void {
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
  output.line();
  printStorage(output, report.storage);
  output.line();
  printRequestRates(output, report.requestRates);
}

/** What is stored now (not only in the window) against the organisation's and the buckets' quotas. */
function printStorage(output: Output, storage: UsageReport['storage']): void {
  output.line('Storage now');
  output.fields([
    ['Organisation quota', quota(storage.quota)],
    ['Organisation holds', held(storage.usage)],
  ]);
  if (storage.buckets.length === 0) return;
  output.table(
    storage.buckets,
    [
      { header: 'bucket', value: (row) => row.bucket },
      { header: 'quota', value: (row) => quota(row.quota) },
      { header: 'holds', value: (row) => held(row.usage) },
    ],
    '',
  );
}

function printRequestRates(output: Output, rates: UsageReport['requestRates']): void {
  output.line('Request rates');
  output.fields([
    ['Organisation', rate(rates.organisation)],
    ['Each credential', rate(rates.perCredential)],
    ['Throttled (503 SlowDown)', rates.throttledRequests],
  ]);
  if (rates.byCredential.length === 0) return;
  output.table(
    rates.byCredential,
    [
      { header: 'credential', value: (row) => row.accessKeyId || '(anonymous)' },
      { header: 'throttled', value: (row) => row.throttledRequests },
    ],
    '',
  );
}

function quota({ maxBytes, maxObjects }: Schemas['StorageQuotaView']): string {
  if (maxBytes === null && maxObjects === null) return 'none';
  return [maxBytes === null ? null : bytes(maxBytes), maxObjects === null ? null : `${maxObjects} objects`]
    .filter((part) => part !== null)
    .join(', ');
}

/** Stored usage is counted only while a quota applies. */
function held(usage: Schemas['StoredUsage'] | undefined): string {
  if (usage === undefined) return 'not counted (no quota)';
  const reserved =
    usage.reservedBytes === 0 && usage.reservedObjects === 0
      ? ''
      : `, ${bytes(usage.reservedBytes)} in ${usage.reservedObjects} reserved by uploads under way`;
  return `${bytes(usage.storedBytes)} in ${usage.storedObjects} objects${reserved}`;
}

function rate(view: Schemas['RequestRateView'] | undefined): string {
  return view === undefined ? 'no limit' : `${view.requestsPerSecond}/s, burst ${view.burst}`;
}
