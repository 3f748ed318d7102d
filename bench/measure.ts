/** Timing loops, percentiles and the result shapes every benchmark reports. */
import { performance } from 'node:perf_hooks';

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

export interface Target {
  readonly kind: 'min' | 'max';
  readonly limit: number;
  /** The named constant in targets.ts, where the reasoning is. */
  readonly constant: string;
}

/** One measured value held against a target; `value` null: not measured (`reason` says why). */
export interface Check {
  readonly name: string;
  readonly value: number | null;
  readonly unit: string;
  readonly target: Target;
  readonly reason?: string;
}

/** Met, missed, or null when not measured. */
export function passes(check: Check): boolean | null {
  if (check.value === null) return null;
  return check.target.kind === 'min' ? check.value >= check.target.limit : check.value <= check.target.limit;
}

/** What one benchmark reports: a table for people, checks for the exit code, raw data for the JSON. */
export interface Section {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | number)[])[];
  readonly checks: readonly Check[];
  readonly notes?: readonly string[];
  /** Further tables, printed after the notes, each with notes of its own; no checks. */
  readonly tables?: readonly Table[];
  readonly data: unknown;
}

export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | number)[])[];
  readonly notes?: readonly string[];
}

export interface Throughput {
  readonly ops: number;
  readonly seconds: number;
  readonly opsPerSecond: number;
  /** CPU time this process used meanwhile (user + system). */
  readonly cpuSeconds: number;
  /**
   * Ops per CPU-second: what one core does when it is not shared. Robust to other load on the
   * machine, unlike `opsPerSecond`, so targets use it.
   */
  readonly opsPerCpuSecond: number;
}

/** CPU seconds (user + system) this process has used since `since`. */
export function cpuSecondsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

/**
 * Runs `op` in batches until `durationMs` has passed (checked between batches, so the loop is
 * bounded by time and by `maxOps`). A warm-up of `warmupMs` runs first and is not counted.
 */
export async function timeOps(
  op: () => unknown,
  options: { durationMs: number; warmupMs: number; batch?: number; maxOps?: number },
): Promise<Throughput> {
  const batch = options.batch ?? 200;
  const maxOps = options.maxOps ?? 50_000_000;
  const run = async (durationMs: number): Promise<Throughput> => {
    const started = performance.now();
    const cpuStart = process.cpuUsage();
    const deadline = started + durationMs;
    let ops = 0;
    while (ops < maxOps) {
      for (let i = 0; i < batch; i += 1) {
        const pending = op();
        if (pending instanceof Promise) await pending;
      }
      ops += batch;
      if (performance.now() >= deadline) break;
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuSeconds = cpuSecondsSince(cpuStart);
    return { ops, seconds, opsPerSecond: ops / seconds, cpuSeconds, opsPerCpuSecond: ops / cpuSeconds };
  };
  await run(options.warmupMs);
  return run(options.durationMs);
}

/** The median (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Runs `run` once per side, side after side, `rounds` times over (A, B, A, B, …): load from other
 * work on the machine drifts, and alternating makes the drift hit both sides alike.
 */
export async function alternateRounds<S extends string, T>(
  sides: readonly S[],
  rounds: number,
  run: (side: S, round: number) => Promise<T>,
): Promise<Record<S, T[]>> {
  const results = Object.fromEntries(sides.map((side) => [side, [] as T[]])) as Record<S, T[]>;
  for (let round = 0; round < rounds; round += 1) {
    for (const side of sides) results[side].push(await run(side, round));
  }
  return results;
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
