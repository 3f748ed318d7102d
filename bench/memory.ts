/**
 * Gateway memory from outside: VmRSS (/proc/<pid>/status) of each of its processes.
 *
 * - idle: after start-up and a short warm-up (WARM_UP requests of each scenario at low
 *   concurrency, then its queued access log written and SETTLE_MS of quiet): a deployed worker that
 *   is up and warm;
 * - peak: the highest value sampled every 100 ms while the gateway serves 64 connections;
 * - growth: peak − idle of the same process.
 *
 * The targets hold each process that serves the storage endpoint (the storage workers; the main
 * process only when it serves storage itself, in development mode with one worker); the main
 * process of a production gateway (control plane, metrics, supervisor) is shown beside, without a
 * target. Section `memory` does this against the minimal backend; rgw.ts uses the same helpers.
 */
import { randomBlock } from './body-source.js';
import { servesStorage, type Gateway } from './gateway.js';
import { gatewayHooks, measureLoad } from './load-run.js';
import { MiB, round, sleep, type Check, type Section } from './measure.js';
import { treeRss } from './proc.js';
import { SMALL_OBJECT_BYTES, SMALL_SCENARIOS, smallRequest } from './requests.js';
import type { Settings } from './settings.js';
import { check, TARGETS } from './targets.js';
import { replaySequentially, type ReplayRequest } from './wrk.js';

/** Quiet time after the warm-up before the idle reading (timers and sockets settle). */
const SETTLE_MS = 2000;
/**
 * The warm-up before the idle reading, per scenario: `requests` at `connections` at a time, fresh
 * connections every `perConnection` requests (so every storage worker gets some).
 */
export const WARM_UP = { requests: 300, connections: 2, perConnection: 25 } as const;

export interface MemoryReport {
  /** RSS of each process right after start-up and set-up, before any request. */
  readonly afterStart: ReadonlyMap<number, number>;
  /** RSS of each process idle after the warm-up: the reference of growth. */
  readonly idle: ReadonlyMap<number, number>;
  /** Per 64-connection load: each process's peak RSS while it ran. */
  readonly peaks: readonly { label: string; peak: ReadonlyMap<number, number> }[];
}

/**
 * The warm-up (WARM_UP of each request, in order), then the idle reading: once the access log it
 * queued is written out, and SETTLE_MS later.
 */
export async function warmUpThenIdleRss(
  gateway: Gateway,
  requests: readonly ReplayRequest[],
): Promise<Map<number, number>> {
  for (const request of requests) await replaySequentially(gateway.s3Url, request, WARM_UP);
  await gateway.logQuiet(300, 120_000);
  await sleep(SETTLE_MS);
  return treeRss(gateway.pid);
}

/** How the idle reading was taken, for table notes. */
export function idleDefinition(scenarios: string): string {
  return (
    `idle = VmRSS after start-up, set-up and a warm-up of ${WARM_UP.requests} requests of ${scenarios} at ` +
    `${WARM_UP.connections} connections (fresh ones every ${WARM_UP.perConnection} requests), its access log written, then ${SETTLE_MS / 1000} s quiet;`
  );
}

const IDLE_LIMIT = TARGETS.MAX_IDLE_RSS_MIB_PER_WORKER.limit;
const GROWTH_LIMIT = TARGETS.MAX_RSS_GROWTH_MIB_UNDER_LOAD.limit;

const mib = (bytes: number | undefined) => (bytes === undefined ? '' : String(Math.round(bytes / MiB)));

/** Largest growth of `pid` over the loads, and the load it happened in. */
function growthOf(report: MemoryReport, pid: number): { bytes: number; label: string } {
  let worst = { bytes: 0, label: '' };
  for (const { label, peak } of report.peaks) {
    const bytes = (peak.get(pid) ?? 0) - (report.idle.get(pid) ?? 0);
    if (bytes > worst.bytes || worst.label === '') worst = { bytes: Math.max(0, bytes), label };
  }
  return worst;
}

/** Table rows (one per gateway process) and the RSS checks, named with `context`. */
export function memoryResults(
  gateway: Gateway,
  report: MemoryReport,
  context: string,
): { rows: (string | number)[][]; checks: Check[] } {
  const pids = [...new Set([...report.idle.keys(), ...report.peaks.flatMap(({ peak }) => [...peak.keys()])])];
  const rows: (string | number)[][] = [];
  const checks: Check[] = [];
  for (const pid of pids) {
    const role = gateway.role(pid);
    const growth = growthOf(report, pid);
    const peak = Math.max(...report.peaks.map(({ peak: peaks }) => peaks.get(pid) ?? 0));
    const target = servesStorage(role);
    rows.push([
      `${pid} ${role}`,
      mib(report.afterStart.get(pid)),
      mib(report.idle.get(pid)),
      mib(peak),
      `${round(growth.bytes / MiB, 1)} (${growth.label})`,
      target ? `idle ≤ ${IDLE_LIMIT}, growth ≤ ${GROWTH_LIMIT}` : 'none',
    ]);
    if (!target) continue;
    const idle = report.idle.get(pid);
    if (idle !== undefined) {
      checks.push(
        check(
          'MAX_IDLE_RSS_MIB_PER_WORKER',
          `${context}: ${role} ${pid} idle RSS`,
          round(idle / MiB, 0),
          'MiB',
        ),
      );
    }
    checks.push(
      check(
        'MAX_RSS_GROWTH_MIB_UNDER_LOAD',
        `${context}: ${role} ${pid} RSS growth under 64 connections`,
        round(growth.bytes / MiB, 1),
        'MiB',
      ),
    );
  }
  return { rows, checks };
}

export const MEMORY_COLUMNS = [
  'process',
  'after start MiB',
  'idle MiB',
  'peak MiB',
  'growth MiB (worst load)',
  'target',
];

/** The notes every memory table ends with. */
export function memoryNotes(scenarios: string, loads: string): string[] {
  return [
    `VmRSS from /proc/<pid>/status of each gateway process. after start = once started and set up, before any request;`,
    idleDefinition(scenarios),
    `peak = highest VmRSS sampled every 100 ms during ${loads}; growth = peak − idle of the same process.`,
    'Targets per process serving storage (each storage worker; the main process only when it serves storage itself):',
    `idle ≤ ${IDLE_LIMIT} MiB, growth ≤ ${GROWTH_LIMIT} MiB. The main process of a production gateway (control plane, metrics, supervisor) has none.`,
  ];
}

/** Section `memory`: a fresh gateway (one worker), every 4 KiB scenario at 64 connections. */
export async function runMemory(
  settings: Settings,
  gateway: Gateway,
  afterStart: ReadonlyMap<number, number>,
): Promise<Section> {
  const body = randomBlock(SMALL_OBJECT_BYTES);
  const target = { endpoint: gateway.s3Url, bucket: gateway.bucket, credential: gateway.credential };
  const loads: { label: string; request: ReplayRequest }[] = [];
  for (const scenario of SMALL_SCENARIOS) {
    const key = scenario.startsWith('GET') ? 'bench/object-4k.bin' : 'bench/upload-4k.bin';
    loads.push({ label: scenario, request: await smallRequest(scenario, target, key, body) });
  }
  const connections = settings.memoryConnections;
  const idle = await warmUpThenIdleRss(
    gateway,
    loads.map((load) => load.request),
  );
  const peaks: MemoryReport['peaks'][number][] = [];
  const logNotes: string[] = [];
  for (const load of loads) {
    const run = await measureLoad({
      baseUrl: gateway.s3Url,
      request: load.request,
      connections,
      seconds: settings.loadSeconds,
      warmupSeconds: 0,
      parties: [],
      sampleRssOf: gateway.pid,
      ...gatewayHooks(gateway),
    });
    peaks.push({ label: load.label, peak: run.peakRss ?? new Map() });
    if (run.log !== undefined) {
      logNotes.push(
        `  ${load.label}: ${Math.round(run.wrk.requestsPerSecond)} req/s, access log ${Math.round(run.log.bytesPerRequest)} B/req, ` +
          `${Math.round(100 * run.log.writtenDuringRun)}% written while wrk ran, the rest ${run.log.drainSeconds.toFixed(1)} s after`,
      );
    }
  }
  const { rows, checks } = memoryResults(gateway, { afterStart, idle, peaks }, 'minimal backend');
  return {
    title: `Gateway memory: RSS per process, ${connections} connections of 4 KiB requests (minimal backend)`,
    columns: MEMORY_COLUMNS,
    rows,
    checks,
    notes: [
      `A gateway of its own (GATEWAY_WORKERS=1, ${gateway.mode} mode), in front of the minimal backend.`,
      ...memoryNotes(
        `each of the ${SMALL_SCENARIOS.length} 4 KiB scenarios`,
        `${settings.loadSeconds} s of each scenario at ${connections} connections (wrk), one after the other`,
      ),
      'Its stdout (the access log) is read and discarded by the benchmark, as a log collector would:',
      ...logNotes,
    ],
    data: {
      afterStart: Object.fromEntries(afterStart),
      idle: Object.fromEntries(idle),
      peaks: peaks.map(({ label, peak }) => ({ label, peak: Object.fromEntries(peak) })),
      roles: Object.fromEntries([...idle.keys()].map((pid) => [pid, gateway.role(pid)])),
      warmUp: WARM_UP,
      log: logNotes,
    },
  };
}
