/**
 * Section `floor`: the gateway (one storage worker) against the floor, a bare http-proxy-3 with a
 * keep-alive agent, both in front of the same minimal backend, for every 4 KiB scenario. Each
 * scenario alternates rounds (floor, pass-through, gateway, floor, …) and reports medians: requests
 * per second, p50/p99, and the CPU time per request of every process on each side. The undici
 * pass-through (a bare proxy on the gateway's upstream client) is an informational reference in
 * the same rounds, in a table of its own: no target is held against it.
 */
import type { BackendProcess, FloorProcess } from './children.js';
import type { Gateway } from './gateway.js';
import { gatewayHooks, measureLoad, type LoadMeasurement } from './load-run.js';
import { alternateRounds, median, round, type Check, type Section } from './measure.js';
import { randomBlock } from './body-source.js';
import { SMALL_OBJECT_BYTES, SMALL_SCENARIOS, smallRequest, type SmallScenario } from './requests.js';
import type { Settings } from './settings.js';
import { check } from './targets.js';
import { probe } from './wrk.js';

type Side = 'floor' | 'passThrough' | 'gateway';
const SIDES: readonly Side[] = ['floor', 'passThrough', 'gateway'];

/** Medians over the rounds of one side of one scenario. */
export interface SideSummary {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU µs per request: the proxy (floor, pass-through or gateway, all its processes), the backend, wrk. */
  readonly proxyCpu: number;
  readonly backendCpu: number;
  readonly wrkCpu: number;
  /** The gateway's processes (main and workers) when there are several, each with its median. */
  readonly perProcess: readonly { pid: number; microsPerRequest: number }[];
  /** The gateway's access log: bytes per request, share written during the run, drain seconds. */
  readonly log?: { bytesPerRequest: number; writtenDuringRun: number; drainSeconds: number };
}

export interface FloorScenarioResult {
  readonly scenario: SmallScenario;
  readonly floor: SideSummary;
  readonly passThrough: SideSummary;
  readonly gateway: SideSummary;
  readonly rounds: Record<Side, LoadMeasurement[]>;
}

function summarise(runs: readonly LoadMeasurement[], proxy: Side): SideSummary {
  const of = (pick: (run: LoadMeasurement) => number) => median(runs.map(pick));
  const pids = [...new Set(runs.flatMap((run) => (run.processes[proxy] ?? []).map((row) => row.pid)))];
  return {
    requestsPerSecond: of((run) => run.wrk.requestsPerSecond),
    p50Ms: of((run) => run.wrk.p50Ms),
    p99Ms: of((run) => run.wrk.p99Ms),
    proxyCpu: of((run) => run.cpuMicrosPerRequest[proxy] ?? Number.NaN),
    backendCpu: of((run) => run.cpuMicrosPerRequest.backend ?? Number.NaN),
    wrkCpu: of((run) => run.cpuMicrosPerRequest.wrk ?? Number.NaN),
    ...(runs.every((run) => run.log !== undefined)
      ? {
          log: {
            bytesPerRequest: of((run) => run.log?.bytesPerRequest ?? Number.NaN),
            writtenDuringRun: of((run) => run.log?.writtenDuringRun ?? Number.NaN),
            drainSeconds: of((run) => run.log?.drainSeconds ?? Number.NaN),
          },
        }
      : {}),
    perProcess: pids.map((pid) => ({
      pid,
      microsPerRequest: of(
        (run) => (run.processes[proxy] ?? []).find((row) => row.pid === pid)?.microsPerRequest ?? 0,
      ),
    })),
  };
}

const ms = (value: number) => value.toFixed(2);
const us = (value: number) => String(Math.round(value));

export async function runFloor(
  settings: Settings,
  backend: BackendProcess,
  references: { floor: FloorProcess; passThrough: FloorProcess },
  gateway: Gateway,
): Promise<Section> {
  const { floor, passThrough } = references;
  const body = randomBlock(SMALL_OBJECT_BYTES);
  const results: FloorScenarioResult[] = [];
  for (const scenario of SMALL_SCENARIOS) {
    // The backend answers any GET with 4 KiB and discards any PUT; keys only need to look real.
    const key = scenario.startsWith('GET') ? 'bench/object-4k.bin' : 'bench/upload-4k.bin';
    const access = { bucket: gateway.bucket, credential: gateway.credential };
    const urls: Record<Side, string> = {
      floor: floor.url,
      passThrough: passThrough.url,
      gateway: gateway.s3Url,
    };
    const pids: Record<Side, number> = {
      floor: floor.pid,
      passThrough: passThrough.pid,
      gateway: gateway.pid,
    };
    // Each signed for its own host; the references do not re-sign and the backend ignores the
    // signature, but every side gets the same bytes.
    const requests = {} as Record<Side, Awaited<ReturnType<typeof smallRequest>>>;
    for (const side of SIDES)
      requests[side] = await smallRequest(scenario, { endpoint: urls[side], ...access }, key, body);
    for (const side of SIDES) await probe(urls[side], requests[side]);
    const rounds = await alternateRounds(SIDES, settings.rounds, (side) =>
      measureLoad({
        baseUrl: urls[side],
        request: requests[side],
        connections: settings.floorConnections,
        seconds: settings.loadSeconds,
        warmupSeconds: settings.warmupSeconds,
        parties: [
          { name: side, roots: [pids[side]] },
          { name: 'backend', roots: [backend.pid] },
        ],
        ...(side === 'gateway'
          ? gatewayHooks(gateway)
          : { diagnose: () => (side === 'floor' ? floor : passThrough).diagnose() }),
      }),
    );
    results.push({
      scenario,
      floor: summarise(rounds.floor, 'floor'),
      passThrough: summarise(rounds.passThrough, 'passThrough'),
      gateway: summarise(rounds.gateway, 'gateway'),
      rounds,
    });
  }

  const checks: Check[] = [];
  const rows = results.map(({ scenario, floor: f, gateway: g }) => {
    const rpsPercent = (100 * g.requestsPerSecond) / f.requestsPerSecond;
    const cpuRatio = g.proxyCpu / f.proxyCpu;
    const label = `${scenario} c=${settings.floorConnections}`;
    checks.push(
      check(
        scenario === 'PUT aws-chunked CRC32' ? 'FLOOR_MAX_CPU_RATIO_AWS_CHUNKED' : 'FLOOR_MAX_CPU_RATIO',
        `${label}: gateway CPU per request / floor's`,
        round(cpuRatio, 2),
        '×',
      ),
      check('FLOOR_MIN_RPS_PERCENT', `${label}: gateway req/s, % of floor's`, round(rpsPercent, 0), '%'),
    );
    return [
      scenario,
      `${round(cpuRatio, 2).toFixed(2)}×`,
      `${Math.round(rpsPercent)}%`,
      `${us(g.proxyCpu)} / ${us(f.proxyCpu)}`,
      `${Math.round(g.requestsPerSecond)} / ${Math.round(f.requestsPerSecond)}`,
      `${ms(g.p50Ms)} / ${ms(f.p50Ms)}`,
      `${ms(g.p99Ms)} / ${ms(f.p99Ms)}`,
      `${us(g.backendCpu)} / ${us(f.backendCpu)}`,
      `${us(g.wrkCpu)} / ${us(f.wrkCpu)}`,
    ];
  });
  const workers = Math.max(...results.map((result) => result.gateway.perProcess.length));
  const notes = [
    'Each cell: gateway / floor. The floor is a bare http-proxy-3 with a keep-alive agent (floor-process.mjs);',
    'both sides proxy to the same minimal backend (child process; ignores auth, answers 4 KiB, discards uploads).',
    `Medians of ${settings.rounds} alternating round(s) (floor, pass-through, gateway) of ${settings.loadSeconds} s (after ${settings.warmupSeconds} s of warm-up) per side, wrk with 1 thread.`,
    'CPU µs/req: user + system CPU time of the process (all its threads; the gateway: its main process and storage workers) over',
    'the requests wrk completed, from /proc/<pid>/stat; wrk from this process’s reaped-children time.',
  ];
  notes.push(
    'The gateway side’s CPU reading waits until its stdout is quiet: access-log lines still queued when wrk ends are',
    'written afterwards, and counted. Access log per scenario (bytes/req, share written while wrk ran, drain after):',
  );
  for (const { scenario, gateway: g } of results) {
    if (g.log === undefined) continue;
    notes.push(
      `  ${scenario}: ${Math.round(g.log.bytesPerRequest)} B/req, ${Math.round(100 * g.log.writtenDuringRun)}% during the run, drained ${g.log.drainSeconds.toFixed(1)} s after`,
    );
  }
  if (workers > 1) {
    for (const result of results) {
      const detail = result.gateway.perProcess
        .map((row) => `${row.pid} ${gateway.role(row.pid)}: ${us(row.microsPerRequest)}`)
        .join(', ');
      notes.push(`${result.scenario}: gateway CPU µs/req per process: ${detail}`);
    }
  }
  const passThroughRows = results.map(({ scenario, floor: f, passThrough: u, gateway: g }) => [
    scenario,
    us(g.proxyCpu - u.proxyCpu),
    `${round(g.proxyCpu / u.proxyCpu, 2).toFixed(2)}×`,
    `${round(u.proxyCpu / f.proxyCpu, 2).toFixed(2)}×`,
    `${us(g.proxyCpu)} / ${us(u.proxyCpu)} / ${us(f.proxyCpu)}`,
    `${Math.round(g.requestsPerSecond)} / ${Math.round(u.requestsPerSecond)} / ${Math.round(f.requestsPerSecond)}`,
    `${ms(u.p50Ms)} / ${ms(u.p99Ms)}`,
  ]);
  const passThroughTable = {
    title: 'Reference: undici pass-through, informational (no targets)',
    columns: [
      'scenario',
      'gateway own µs/req',
      'gateway CPU ×pass',
      'pass CPU ×floor',
      'CPU µs/req g / pass / floor',
      'req/s g / pass / floor',
      'pass p50 / p99 ms',
    ],
    rows: passThroughRows,
    notes: [
      'g: the gateway; pass: the undici pass-through (undici-passthrough-process.mjs), a bare proxy on undici’s Pool.dispatch',
      '(the gateway’s upstream client) with a keep-alive pool to the same backend: method, path and end-to-end headers forwarded,',
      'bodies streamed, no authentication, re-signing, logging or metrics; in the same alternating rounds as the floor and the gateway.',
      'pass CPU ×floor: what the chosen upstream client costs against http-proxy-3, per request.',
      'gateway own µs/req: gateway CPU µs/req − pass-through CPU µs/req, the price of the gateway’s own work (SigV4 verification,',
      'authorisation, re-signing, the access log, metrics, aws-chunked decoding). No targets: they hold the gateway against the floor.',
    ],
  };

  return {
    title: `Gateway vs floor: 4 KiB objects, ${settings.floorConnections} connections, one gateway worker (GATEWAY_WORKERS=1)`,
    columns: [
      'scenario',
      'CPU ×floor',
      'req/s %floor',
      'proxy CPU µs/req',
      'req/s',
      'p50 ms',
      'p99 ms',
      'backend CPU µs/req',
      'wrk CPU µs/req',
    ],
    rows,
    checks,
    notes,
    tables: [passThroughTable],
    data: results.map(({ scenario, floor: f, passThrough: u, gateway: g, rounds }) => ({
      scenario,
      floor: f,
      passThrough: u,
      gateway: g,
      gatewayOwnCpuMicrosPerRequest: g.proxyCpu - u.proxyCpu,
      rounds: {
        floor: rounds.floor.map(({ peakRss: _peak, ...run }) => run),
        passThrough: rounds.passThrough.map(({ peakRss: _peak, ...run }) => run),
        gateway: rounds.gateway.map(({ peakRss: _peak, ...run }) => run),
      },
    })),
  };
}
