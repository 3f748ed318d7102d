/** How long each benchmark runs: the full run, or a short smoke run with `--quick`. */
import { GiB, MiB } from './measure.js';

export interface Settings {
  readonly quick: boolean;
  /** Each in-process SigV4 measurement (after its warm-up). */
  readonly opsMs: number;
  readonly opsWarmupMs: number;
  /** Each aws-chunked decode + checksum measurement, roughly (its size is calibrated to it). */
  readonly chunkedMs: number;
  /** Each proxy load scenario (one method, one target, one concurrency), after its warm-up. */
  readonly loadMs: number;
  readonly loadWarmupMs: number;
  readonly concurrencies: readonly number[];
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
  loadMs: 5000,
  loadWarmupMs: 1000,
  concurrencies: [1, 8, 32],
  streamSizes: [128 * MiB, 1 * GiB],
  slowPeerSize: 256 * MiB,
};

export const QUICK: Settings = {
  quick: true,
  opsMs: 300,
  opsWarmupMs: 100,
  chunkedMs: 300,
  loadMs: 1000,
  loadWarmupMs: 300,
  concurrencies: [1, 8, 32],
  streamSizes: [64 * MiB, 256 * MiB],
  slowPeerSize: 64 * MiB,
};
