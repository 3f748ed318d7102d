/**
 * Targets the benchmarks enforce: `npm run bench` exits 1 when one is missed.
 *
 * The in-process ones (SigV4, streaming) were set from runs on the reference machine (2 vCPUs,
 * AMD EPYC, Node 24.21, shared with other jobs) with headroom; they are counted in CPU time where
 * they can be, which stays steady when other jobs load the machine. The proxy targets are ratios
 * against a reference measured in the same run, alternating rounds (the floor: a bare
 * http-proxy-3; RGW itself), so machine speed and outside load cancel out. They state what users
 * need (issue 10) and are never lowered to fit the code: a miss is a finding.
 */
import type { Check, Target } from './measure.js';

export const TARGETS = {
  /**
   * Measured 16–21k/CPU-s (~50 µs). Cold-cache runs reach 6–8k, so a floor of 8k also catches a
   * signing-key cache that stopped working.
   */
  SIGV4_HEADER_WARM_MIN_OPS: { kind: 'min', limit: 8000 },
  /** Measured 5.8–8.4k/CPU-s (four more HMACs per request); ~2× headroom. */
  SIGV4_HEADER_COLD_MIN_OPS: { kind: 'min', limit: 3000 },
  /** Measured 14–17k/CPU-s; ~2.5× headroom. */
  SIGV4_PRESIGNED_MIN_OPS: { kind: 'min', limit: 6000 },
  /**
   * Measured 1.8–3.5 GiB per CPU-second. 800 MiB/s is more than a 5 Gbit/s link carries, and a
   * pure-JavaScript CRC (this machine: CRC64NVME ~380, CRC32C ~90 MiB/s) would miss it.
   */
  CHUNKED_CRC32_MIN_MIBS: { kind: 'min', limit: 800 },
  /**
   * Gateway CPU per 4 KiB GET or PUT (header-signed or presigned), as a multiple of the floor's:
   * a bare http-proxy-3 with a keep-alive agent in front of the same backend, measured in the same
   * run (floor.ts). What the gateway adds (SigV4 verification, scope and suspension checks,
   * re-signing, the access log, metrics) may cost at most as much again as proxying itself. A
   * ratio, so it holds on any machine and under outside load, which slows both sides alike.
   */
  FLOOR_MAX_CPU_RATIO: { kind: 'max', limit: 2.0 },
  /**
   * The same for a 4 KiB aws-chunked PUT with a CRC32 trailer (what current SDKs send): the gateway
   * must also decode the framing and verify the checksum, which the floor forwards untouched.
   */
  FLOOR_MAX_CPU_RATIO_AWS_CHUNKED: { kind: 'max', limit: 2.5 },
  /**
   * Gateway CPU per 4 KiB GET or PUT of an organisation with request rate limits (its own and each
   * credential's), and per GET of a bucket under a storage quota, as a multiple of the same request
   * of an organisation without limits, measured at the same moment on a second instance of the
   * same deployment and then swapped (limits.ts): the checks run on every request, so they may
   * cost at most 5% of it (issue 15).
   */
  LIMITS_MAX_CPU_RATIO: { kind: 'max', limit: 1.05 },
  /**
   * One storage worker at 32 connections: at least half the floor's requests per second, in every
   * small-object scenario. Wall-clock, so the backend and wrk share the cores with it on both sides.
   */
  FLOOR_MIN_RPS_PERCENT: { kind: 'min', limit: 50 },
  /**
   * RGW pinned to one core, the gateway (one worker) to the other: 4 KiB presigned GETs through
   * the gateway reach at least 90% of RGW's own rate at 16 and 64 connections. With a core of its
   * own the gateway should never be what limits a real store.
   */
  RGW_PINNED_MIN_GET_RPS_PERCENT: { kind: 'min', limit: 90 },
  /** ...and add at most 1 ms to the median latency of those GETs. */
  RGW_PINNED_MAX_ADDED_P50_MS: { kind: 'max', limit: 1 },
  /**
   * One 1 GiB stream PUT or GET through the gateway: at least 95% of the same transfer straight to
   * RGW, pinned and unpinned. Streaming is copying buffers; the gateway must not be the bottleneck.
   */
  RGW_MIN_LARGE_THROUGHPUT_PERCENT: { kind: 'min', limit: 95 },
  /**
   * RSS of each process serving the storage endpoint (each worker; the main process when it is the
   * only one), idle after start-up and a warm-up load: at most 150 MiB, so that one worker per core
   * stays affordable on small machines.
   */
  MAX_IDLE_RSS_MIB_PER_WORKER: { kind: 'max', limit: 150 },
  /**
   * Growth of each such process's RSS above that idle value, at its peak while serving 64
   * connections of 4 KiB requests: bounded per-connection and per-request memory.
   */
  MAX_RSS_GROWTH_MIB_UNDER_LOAD: { kind: 'max', limit: 100 },
  /**
   * The memory bound (growth as defined in streaming.ts): measured 0–62 MiB for 128 MiB, 1 GiB
   * and 4 GiB objects alike and against slow peers, i.e. independent of size; the spread is the
   * garbage collector's timing (up to ~100 MiB of dead buffers await collection). Buffering a
   * 1 GiB object, or ignoring backpressure from a slow peer for 256 MiB, would blow through it.
   */
  STREAM_MAX_RSS_GROWTH_MIB: { kind: 'max', limit: 100 },
  /**
   * Large-object throughput per CPU-second of the gateway: measured 200–490 MiB. Three processes
   * share two cores here, so wall-clock MiB/s says more about the machine than the gateway.
   */
  STREAM_MIN_MIB_PER_CPU_SECOND: { kind: 'min', limit: 120 },
  /** Wall-clock, 1 GiB (256 MiB with --quick): measured 140–480 MiB/s. */
  STREAM_PUT_MIN_MIBS: { kind: 'min', limit: 60 },
  /** Wall-clock, 1 GiB (256 MiB with --quick): measured 120–260 MiB/s. */
  STREAM_GET_MIN_MIBS: { kind: 'min', limit: 50 },
} as const satisfies Record<string, Omit<Target, 'constant'>>;

export type TargetName = keyof typeof TARGETS;

/** A measured value held against the named target. */
export function check(constant: TargetName, name: string, value: number, unit: string): Check {
  return { name, value, unit, target: { ...TARGETS[constant], constant } };
}

/** A target that could not be measured in this run, and why. */
export function notRun(constant: TargetName, name: string, unit: string, reason: string): Check {
  return { name, value: null, unit, reason, target: { ...TARGETS[constant], constant } };
}
