/**
 * Streaming memory bound: large PUTs and GETs through the gateway to the minimal backend (which
 * discards or generates the bytes), with the RSS of every gateway process sampled from /proc
 * throughout. Bodies are generated on the fly on both ends, so only the gateway could hold them.
 */
import { SLOW_PEER_MIB_PER_SECOND, type BackendProcess } from './children.js';
import type { Gateway } from './gateway.js';
import { MiB, round, sleep, type Check, type Section } from './measure.js';
import { cpuSecondsOf, sampleTreeRss, treeRss } from './proc.js';
import type { Target } from './requests.js';
import type { Settings } from './settings.js';
import { streamGet, streamPut, type Outcome } from './stream-transfer.js';
import { check } from './targets.js';

const SAMPLE_EVERY_MS = 50;
/** Warms the gateway's code paths and buffer pools before anything is measured. */
const WARMUP_BYTES = 32 * MiB;

type Kind = 'PUT' | 'PUT aws-chunked CRC32' | 'GET' | 'PUT, slow backend' | 'GET, slow client';
const KINDS: readonly Kind[] = ['PUT', 'PUT aws-chunked CRC32', 'GET'];
/** The far side reads at SLOW_PEER_MIB_PER_SECOND: only backpressure keeps the gateway from buffering. */
const SLOW_KINDS: readonly Kind[] = ['PUT, slow backend', 'GET, slow client'];
const SLOW_BYTES_PER_MS = (SLOW_PEER_MIB_PER_SECOND * MiB) / 1000;

/** One transfer of `size` bytes; resolves with the decoded bytes moved and the time taken. */
function transfer(kind: Kind, target: Target, size: number): Promise<Outcome> {
  switch (kind) {
    // The backend generates `size-<n>` keys on the fly.
    case 'GET':
      return streamGet(target, `bench/size-${size}`, size);
    case 'GET, slow client':
      return streamGet(target, `bench/size-${size}`, size, SLOW_BYTES_PER_MS);
    case 'PUT':
      return streamPut(target, 'bench/large-upload.bin', size);
    case 'PUT aws-chunked CRC32':
      return streamPut(target, 'bench/large-upload.bin', size, 'aws-chunked CRC32');
    case 'PUT, slow backend':
      // The backend reads keys holding `/slow-` slowly.
      return streamPut(target, 'bench/slow-large-upload.bin', size);
  }
}

interface MemoryRun {
  readonly kind: Kind;
  readonly size: number;
  readonly mibPerSecond: number;
  /** MiB moved per CPU-second of the gateway (all its processes). */
  readonly mibPerGatewayCpuSecond: number;
  /** RSS of each gateway process just before the transfer. */
  readonly baseline: Record<number, number>;
  /** Peak RSS of each gateway process during the warm-up transfer of the same kind. */
  readonly warmupPeak: Record<number, number>;
  readonly peak: Record<number, number>;
  /**
   * The largest, over the gateway's processes, of: peak RSS during this transfer above the larger
   * of RSS just before it and the peak of the small warm-up transfer of the same kind. The second
   * keeps a dip in RSS between transfers (the collector handing pages back) from counting as
   * growth: what is measured is what a large object needs beyond a small one.
   */
  readonly rssGrowthMiB: number;
}

const sum = (values: Iterable<number>) => [...values].reduce((total, value) => total + value, 0);

async function measured(
  kind: Kind,
  gateway: Gateway,
  target: Target,
  size: number,
  warmupPeak: Record<number, number> = {},
): Promise<MemoryRun> {
  await sleep(200);
  const baseline = treeRss(gateway.pid);
  const cpuBefore = sum(cpuSecondsOf(gateway.processes()).values());
  const stopSampling = sampleTreeRss(gateway.pid, SAMPLE_EVERY_MS);
  let outcome: Outcome;
  let peak: Map<number, number>;
  try {
    outcome = await transfer(kind, target, size);
    await sleep(SAMPLE_EVERY_MS * 2);
  } finally {
    peak = stopSampling();
  }
  const cpuSeconds = sum(cpuSecondsOf(gateway.processes()).values()) - cpuBefore;
  let growth = 0;
  for (const [pid, bytes] of peak) {
    growth = Math.max(growth, bytes - Math.max(baseline.get(pid) ?? 0, warmupPeak[pid] ?? 0));
  }
  return {
    kind,
    size,
    mibPerSecond: size / MiB / outcome.seconds,
    mibPerGatewayCpuSecond: size / MiB / cpuSeconds,
    baseline: Object.fromEntries(baseline),
    warmupPeak,
    peak: Object.fromEntries(peak),
    rssGrowthMiB: growth / MiB,
  };
}

function mib(bytes: number): number {
  return round(bytes / MiB, 0);
}

function sizeLabel(size: number): string {
  return size >= 1024 * MiB ? `${size / (1024 * MiB)} GiB` : `${size / MiB} MiB`;
}

export async function runStreaming(
  settings: Settings,
  backend: BackendProcess,
  gateway: Gateway,
): Promise<Section> {
  const viaGateway: Target = {
    endpoint: gateway.s3Url,
    bucket: gateway.bucket,
    credential: gateway.credential,
  };
  const direct: Target = { ...viaGateway, endpoint: backend.url };
  const warmupPeaks = new Map<Kind, Record<number, number>>();
  for (const kind of [...KINDS, ...SLOW_KINDS]) {
    warmupPeaks.set(kind, (await measured(kind, gateway, viaGateway, WARMUP_BYTES)).peak);
  }

  const runs: MemoryRun[] = [];
  const plan = [
    ...settings.streamSizes.flatMap((size) => KINDS.map((kind) => ({ kind, size }))),
    ...SLOW_KINDS.map((kind) => ({ kind, size: settings.slowPeerSize })),
  ];
  for (const { kind, size } of plan) {
    const before = await backend.stats();
    runs.push(await measured(kind, gateway, viaGateway, size, warmupPeaks.get(kind)));
    const after = await backend.stats();
    const moved = kind.startsWith('GET') ? after.bytesOut - before.bytesOut : after.bytesIn - before.bytesIn;
    if (moved !== size) throw new Error(`${kind} ${size}: the backend moved ${moved} bytes`);
  }
  const largest = Math.max(...settings.streamSizes);
  const directRuns: { kind: Kind; mibPerSecond: number }[] = [];
  for (const kind of ['PUT', 'GET'] as const) {
    const outcome = await transfer(kind, direct, largest);
    directRuns.push({ kind, mibPerSecond: largest / MiB / outcome.seconds });
  }

  // With several gateway processes only one carries a given stream; its columns show the largest.
  const largestOf = (values: Record<number, number>) => mib(Math.max(0, ...Object.values(values)));
  const rows = runs.map((run) => [
    run.kind,
    sizeLabel(run.size),
    round(run.mibPerSecond, 0),
    round(run.mibPerGatewayCpuSecond, 0),
    largestOf(run.baseline),
    largestOf(run.warmupPeak),
    largestOf(run.peak),
    round(run.rssGrowthMiB, 1),
  ]);
  for (const run of directRuns) {
    rows.push([
      `${run.kind} direct to backend`,
      sizeLabel(largest),
      round(run.mibPerSecond, 0),
      '',
      '',
      '',
      '',
      '',
    ]);
  }

  const checks: Check[] = [];
  for (const run of runs) {
    checks.push(
      check(
        'STREAM_MAX_RSS_GROWTH_MIB',
        `${run.kind} ${sizeLabel(run.size)}: gateway RSS growth`,
        round(run.rssGrowthMiB, 1),
        'MiB',
      ),
    );
    if (run.size !== largest || SLOW_KINDS.includes(run.kind)) continue;
    const constant = run.kind === 'GET' ? 'STREAM_GET_MIN_MIBS' : 'STREAM_PUT_MIN_MIBS';
    const label = `${run.kind} ${sizeLabel(run.size)} via gateway`;
    checks.push(check(constant, label, round(run.mibPerSecond, 0), 'MiB/s'));
    checks.push(
      check(
        'STREAM_MIN_MIB_PER_CPU_SECOND',
        `${label}: gateway CPU`,
        round(run.mibPerGatewayCpuSecond, 0),
        'MiB/CPU-s',
      ),
    );
  }

  return {
    title: 'Streaming memory bound: large objects through the gateway, its RSS sampled every 50 ms',
    columns: [
      'transfer',
      'size',
      'MiB/s',
      'MiB/gateway CPU-s',
      'RSS before MiB',
      `${WARMUP_BYTES / MiB} MiB peak`,
      'RSS peak MiB',
      'RSS growth MiB',
    ],
    rows,
    checks,
    notes: [
      `Gateway in ${gateway.mode} mode, one storage worker; VmRSS of each of its processes from /proc; bodies generated on the fly.`,
      `RSS growth = RSS peak − the larger of RSS before and the peak of a ${WARMUP_BYTES / MiB} MiB transfer of the same kind (run first, as warm-up).`,
      `slow backend / slow client: the far side reads at ${SLOW_PEER_MIB_PER_SECOND} MiB/s while the near side sends as fast as it can.`,
    ],
    data: { runs, direct: directRuns },
  };
}
