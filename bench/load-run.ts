/**
 * One measured load run: a wrk warm-up, then wrk for a fixed time with the CPU time of every
 * process involved taken from /proc just before and just after, so each process's CPU per request
 * is its CPU-time difference over the requests wrk completed. A "party" is a process tree (the
 * gateway's main process and its workers, the floor, the backend, RGW's daemons); wrk itself is
 * counted through this process's reaped-children time, since it exits at the end of the run.
 */
import type { Gateway } from './gateway.js';
import { cpuSecondsOf, processTree, reapedChildrenCpuSeconds, sampleTreeRss } from './proc.js';
import { runWrk, type ReplayRequest, type WrkResult } from './wrk.js';

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
  if (options.warmupSeconds > 0) await runWrkDiagnosed(options, options.warmupSeconds);
  // Log lines the warm-up (or anything before) left queued belong to neither count.
  await options.log?.quiet(LOG_QUIET_MS, LOG_DRAIN_MAX_MS);

  const before = options.parties.map((party) => cpuSecondsOf(pidsOf(party)));
  const wrkBefore = reapedChildrenCpuSeconds();
  const logAtStart = options.log?.bytes() ?? 0;
  const stopSampling = options.sampleRssOf === undefined ? null : sampleTreeRss(options.sampleRssOf, 100);
  let wrk: WrkResult;
  let peakRss: Map<number, number> | undefined;
  let log: LogDuringRun | undefined;
  try {
    wrk = await runWrkDiagnosed(options, options.seconds);
    if (options.log !== undefined) {
      const atEnd = options.log.bytes() - logAtStart;
      const drainSeconds = await options.log.quiet(LOG_QUIET_MS, LOG_DRAIN_MAX_MS);
      const total = options.log.bytes() - logAtStart;
      log = {
        bytesPerRequest: total / wrk.requests,
        writtenDuringRun: total === 0 ? 1 : atEnd / total,
        // The quiet time itself is not part of the drain.
        drainSeconds: Math.max(0, drainSeconds - LOG_QUIET_MS / 1000),
      };
    }
  } finally {
    peakRss = stopSampling?.();
  }
  const wrkSeconds = reapedChildrenCpuSeconds() - wrkBefore;
  const after = options.parties.map((party) => cpuSecondsOf(pidsOf(party)));

  const perRequest = (seconds: number) => (seconds * 1e6) / wrk.requests;
  const cpuMicrosPerRequest: Record<string, number> = { wrk: perRequest(wrkSeconds) };
  const processes: Record<string, ProcessCpu[]> = {};
  options.parties.forEach((party, index) => {
    const start = before[index] as Map<number, number>;
    const end = after[index] as Map<number, number>;
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
}
