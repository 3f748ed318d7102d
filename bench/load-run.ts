/**
 * One measured load run: a wrk warm-up, then wrk for a fixed time with the CPU time of every
 * process involved taken from /proc just before and just after, so each process's CPU per request
 * is its CPU-time difference over the requests wrk completed. A "party" is a process tree (the
 * gateway's main process and its workers, the floor, the backend, RGW's daemons); wrk itself is
 * counted through this process's reaped-children time, since it exits at the end of the run.
 */
import type { Gateway } from './gateway.js';
import { cpuSecondsOf, processTree, reapedChildrenCpuSeconds, sampleTreeRss } from './proc.js';
import { smallRequest, type SmallScenario, type Target } from './requests.js';
import { probe, runWrk, type ReplayRequest, type WrkResult } from './wrk.js';

export interface Party {
  readonly name: string;
  /** Root of the process tree (or a single process) counted under this name. */
  readonly roots: readonly number[];
}

export interface ProcessCpu {
  readonly pid: number;
  readonly microsPerRequest: number;
}

/** The gateway's stdout (its access log) during a run. */
export interface LogDuringRun {
  readonly bytesPerRequest: number;
  /** Share of the run's log bytes written before wrk finished; the rest was still queued. */
  readonly writtenDuringRun: number;
  /** Seconds after wrk finished until stdout was quiet (the queue written out). */
  readonly drainSeconds: number;
}

export interface LoadMeasurement {
  readonly wrk: WrkResult;
  /** CPU µs per request of each party (all its processes together), and of `wrk`. */
  readonly cpuMicrosPerRequest: Readonly<Record<string, number>>;
  /** The same per process, for parties of more than one process. */
  readonly processes: Readonly<Record<string, readonly ProcessCpu[]>>;
  /** Peak RSS of each process of the sampled tree during the measured run, when asked for. */
  readonly peakRss?: ReadonlyMap<number, number>;
  readonly log?: LogDuringRun;
}

export interface LoadOptions {
  readonly baseUrl: string;
  /** One request replayed, or several sent in turn. */
  readonly request: ReplayRequest | readonly ReplayRequest[];
  readonly connections: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly parties: readonly Party[];
  /** Samples the RSS of this process tree every 100 ms during the measured run. */
  readonly sampleRssOf?: number;
  /**
   * The gateway's log. When given, the CPU reading after the run waits until the gateway's stdout
   * is quiet: access-log lines still queued when wrk ends are written afterwards, and that CPU is
   * part of the requests' cost.
   */
  readonly log?: { bytes(): number; quiet(quietMs: number, maxMs: number): Promise<number> };
  /** Added to the error when wrk fails (e.g. whether the gateway still runs). */
  readonly diagnose?: () => string;
}

/** Quiet time that ends a log drain, and the longest drain waited for. */
const LOG_QUIET_MS = 300;
const LOG_DRAIN_MAX_MS = 120_000;

/** The options that watch a gateway: its log, and its state when wrk fails. */
export function gatewayHooks(gateway: Gateway): Pick<LoadOptions, 'log' | 'diagnose'> {
  return {
    log: { bytes: () => gateway.logBytes(), quiet: (quietMs, maxMs) => gateway.logQuiet(quietMs, maxMs) },
    diagnose: () => gateway.diagnose(),
  };
}

/**
 * A load of 4 KiB `scenario` requests on `gateway`'s storage endpoint for `target` (its bucket and
 * credential), one request per key sent in turn, the first tried once; the gateway is the party.
 */
export async function gatewayLoad(
  gateway: Gateway,
  scenario: SmallScenario,
  target: Omit<Target, 'endpoint'>,
  keys: readonly string[],
  body: Buffer,
  run: Pick<LoadOptions, 'connections' | 'seconds' | 'warmupSeconds'>,
): Promise<LoadOptions> {
  const endpoint = { ...target, endpoint: gateway.s3Url };
  const request: ReplayRequest[] = [];
  for (const key of keys) request.push(await smallRequest(scenario, endpoint, key, body));
  await probe(gateway.s3Url, request[0] as ReplayRequest);
  return {
    baseUrl: gateway.s3Url,
    request,
    ...run,
    parties: [{ name: 'gateway', roots: [gateway.pid] }],
    ...gatewayHooks(gateway),
  };
}

/** wrk, with the diagnosis added to its error. */
async function runWrkDiagnosed(options: LoadOptions, seconds: number): Promise<WrkResult> {
  try {
    return await runWrk({ ...options, seconds });
  } catch (error) {
    if (options.diagnose === undefined) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n${options.diagnose()}`, { cause: error });
  }
}

function pidsOf(party: Party): number[] {
  return party.roots.flatMap((root) => processTree(root));
}

export async function measureLoad(options: LoadOptions): Promise<LoadMeasurement> {
  const [measurement] = await measureTogether([options]);
  return measurement as LoadMeasurement;
}

/** A load's wrk result and what its gateway's log did, once its measured run is over. */
interface RunOutcome {
  readonly wrk: WrkResult;
  readonly log?: LogDuringRun;
}

async function measuredRun(options: LoadOptions): Promise<RunOutcome> {
  const logAtStart = options.log?.bytes() ?? 0;
  const wrk = await runWrkDiagnosed(options, options.seconds);
  if (options.log === undefined) return { wrk };
  const atEnd = options.log.bytes() - logAtStart;
  const drainSeconds = await options.log.quiet(LOG_QUIET_MS, LOG_DRAIN_MAX_MS);
  const total = options.log.bytes() - logAtStart;
  return {
    wrk,
    log: {
      bytesPerRequest: total / wrk.requests,
      writtenDuringRun: total === 0 ? 1 : atEnd / total,
      // The quiet time itself is not part of the drain.
      drainSeconds: Math.max(0, drainSeconds - LOG_QUIET_MS / 1000),
    },
  };
}

/**
 * Several loads at the same moment, each its own wrk against its own target: warmed up together,
 * then measured over the same seconds, so that whatever else the machine does weighs on each
 * alike. wrk's CPU is this process's reaped-children time, which cannot tell the wrk processes
 * apart: with several loads, each is given their total over the requests of all of them.
 */
export async function measureTogether(loads: readonly LoadOptions[]): Promise<LoadMeasurement[]> {
  await Promise.all(
    loads.map((options) =>
      options.warmupSeconds > 0 ? runWrkDiagnosed(options, options.warmupSeconds) : undefined,
    ),
  );
  // Log lines the warm-up (or anything before) left queued belong to neither count.
  await Promise.all(loads.map((options) => options.log?.quiet(LOG_QUIET_MS, LOG_DRAIN_MAX_MS)));

  const before = loads.map((options) => options.parties.map((party) => cpuSecondsOf(pidsOf(party))));
  const wrkBefore = reapedChildrenCpuSeconds();
  const sampling = loads.map((options) =>
    options.sampleRssOf === undefined ? null : sampleTreeRss(options.sampleRssOf, 100),
  );
  let outcomes: RunOutcome[];
  let peaks: (Map<number, number> | undefined)[];
  try {
    outcomes = await Promise.all(loads.map((options) => measuredRun(options)));
  } finally {
    peaks = sampling.map((stop) => stop?.());
  }
  const wrkSeconds = reapedChildrenCpuSeconds() - wrkBefore;
  const allRequests = outcomes.reduce((sum, outcome) => sum + outcome.wrk.requests, 0);

  return loads.map((options, load) => {
    const { wrk, log } = outcomes[load] as RunOutcome;
    const peakRss = peaks[load];
    const perRequest = (seconds: number) => (seconds * 1e6) / wrk.requests;
    const cpuMicrosPerRequest: Record<string, number> = { wrk: (wrkSeconds * 1e6) / allRequests };
    const processes: Record<string, ProcessCpu[]> = {};
    options.parties.forEach((party, index) => {
      const start = before[load]?.[index] as Map<number, number>;
      const end = cpuSecondsOf(pidsOf(party));
      const rows: ProcessCpu[] = [];
      for (const [pid, seconds] of end)
        rows.push({ pid, microsPerRequest: perRequest(seconds - (start.get(pid) ?? 0)) });
      cpuMicrosPerRequest[party.name] = rows.reduce((sum, row) => sum + row.microsPerRequest, 0);
      processes[party.name] = rows;
    });
    return {
      wrk,
      cpuMicrosPerRequest,
      processes,
      ...(peakRss === undefined ? {} : { peakRss }),
      ...(log === undefined ? {} : { log }),
    };
  });
}
