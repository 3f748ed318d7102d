/** How long each benchmark runs: the full run, or a short smoke run with `--quick`. */
import { GiB, MiB } from './measure.js';

export interface Settings {
  readonly quick: boolean;
  /** Each in-process SigV4 measurement (after its warm-up). */
  readonly opsMs: number;
  readonly opsWarmupMs: number;
  /** Each aws-chunked decode + checksum measurement, roughly (its size is calibrated to it). */
  readonly chunkedMs: number;
  /** Each wrk measurement (one scenario, one side, one round), whole seconds (wrk's -d). */
  readonly loadSeconds: number;
  /** wrk run before each measurement and not counted. */
  readonly warmupSeconds: number;
  /** Alternating rounds (one side, then the other) per scenario; medians are reported. */
  readonly rounds: number;
  /** Pairs of runs (with a limit, without) per limit and scenario of the `limits` section. */
  readonly limitsPairs: number;
  /** Each of those runs, whole seconds. */
  readonly limitsLoadSeconds: number;
  /** Connections of the floor comparison (the targets are stated at 32). */
  readonly floorConnections: number;
  /** Connections of the RGW comparison, and the one the memory growth target is stated at. */
  readonly rgwConnections: readonly number[];
  readonly memoryConnections: number;
  /** One stream through the gateway and straight to RGW, each way. */
  readonly rgwLargeBytes: number;
  /**
   * Alternating rounds of the large transfers: odd, so the median is one transfer's and a single
   * slow one (seen at 78% beside 93–100% in the same rounds) does not move it.
   */
  readonly rgwLargeRounds: number;
  /** Large-object sizes streamed through the gateway; memory growth must not depend on them. */
  readonly streamSizes: readonly number[];
  /** Size streamed against a slow peer (backpressure must hold the gateway's memory). */
  readonly slowPeerSize: number;
}

export const FULL: Settings = {
  quick: false,
  opsMs: 2000,
  opsWarmupMs: 500,
  chunkedMs: 2000,
  loadSeconds: 5,
  warmupSeconds: 1,
  rounds: 3,
  limitsPairs: 5,
  limitsLoadSeconds: 2,
  floorConnections: 32,
  rgwConnections: [16, 64],
  memoryConnections: 64,
  rgwLargeBytes: 1 * GiB,
  rgwLargeRounds: 3,
  streamSizes: [128 * MiB, 1 * GiB],
  slowPeerSize: 256 * MiB,
};

export const QUICK: Settings = {
  quick: true,
  opsMs: 300,
  opsWarmupMs: 100,
  chunkedMs: 300,
  loadSeconds: 2,
  warmupSeconds: 1,
  rounds: 1,
  limitsPairs: 2,
  limitsLoadSeconds: 2,
  floorConnections: 32,
  rgwConnections: [16, 64],
  memoryConnections: 64,
  rgwLargeBytes: 256 * MiB,
  rgwLargeRounds: 1,
  streamSizes: [64 * MiB, 256 * MiB],
  slowPeerSize: 64 * MiB,
};
