/**
 * Streaming memory bound: large PUTs and GETs through the gateway to the minimal backend (which
 * discards or generates the bytes), with the gateway child's memory sampled throughout. Bodies
 * are generated on the fly on both ends, so only the gateway could hold them.
 */
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import {
  SLOW_PEER_MIB_PER_SECOND,
  type BackendProcess,
  type GatewayProcess,
  type MemoryUsage,
} from './children.js';
import { AwsChunkedSource, CountingSink, PlainSource, randomBlock, ThrottledSink } from './body-source.js';
import { MiB, round, sleep, type Check, type Section } from './measure.js';
import type { Settings } from './settings.js';
import { EMPTY_SHA256, signHeaders, UNSIGNED_PAYLOAD, type Credential } from './sign.js';
import { check } from './targets.js';

/** A transfer that makes no progress for this long is abandoned (and the benchmark fails). */
const IDLE_TIMEOUT_MS = 30_000;
const SAMPLE_EVERY_MS = 50;
/** Warms the gateway's code paths and buffer pools before anything is measured. */
const WARMUP_BYTES = 32 * MiB;

type Kind = 'PUT' | 'PUT aws-chunked CRC32' | 'GET' | 'PUT, slow backend' | 'GET, slow client';
const KINDS: readonly Kind[] = ['PUT', 'PUT aws-chunked CRC32', 'GET'];
/** The far side reads at SLOW_PEER_MIB_PER_SECOND: only backpressure keeps the gateway from buffering. */
const SLOW_KINDS: readonly Kind[] = ['PUT, slow backend', 'GET, slow client'];
const SLOW_BYTES_PER_MS = (SLOW_PEER_MIB_PER_SECOND * MiB) / 1000;

interface Target {
  readonly endpoint: string;
  readonly bucket: string;
  readonly credential: Credential;
}

interface Outcome {
  readonly status: number;
  readonly bytes: number;
  readonly seconds: number;
}

function send(
  endpoint: string,
  method: 'GET' | 'PUT',
  path: string,
  headers: Record<string, string>,
  body: NodeJS.ReadableStream | null,
  sink: CountingSink | ThrottledSink = new CountingSink(),
): Promise<Outcome> {
  const url = new URL(endpoint);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, method, path, headers, agent: false },
      (response) => {
        pipeline(response, sink).then(
          () =>
            resolve({
              status: response.statusCode ?? 0,
              bytes: sink.bytes,
              seconds: (performance.now() - started) / 1000,
            }),
          reject,
        );
      },
    );
    request.setTimeout(IDLE_TIMEOUT_MS, () => request.destroy(new Error(`${method} ${path}: stalled`)));
    request.once('error', reject);
    if (body === null) request.end();
    else pipeline(body, request).catch(reject);
  });
}

/** One transfer of `size` bytes; resolves with the decoded bytes moved and the time taken. */
async function transfer(kind: Kind, target: Target, size: number): Promise<Outcome> {
  const block = randomBlock();
  if (kind === 'GET' || kind === 'GET, slow client') {
    const path = `/${target.bucket}/bench/size-${size}`;
    const headers = await signHeaders(target.credential, {
      method: 'GET',
      endpoint: target.endpoint,
      path,
      headers: { 'x-amz-content-sha256': EMPTY_SHA256 },
    });
    const sink = kind === 'GET' ? new CountingSink() : new ThrottledSink(SLOW_BYTES_PER_MS);
    const outcome = await send(target.endpoint, 'GET', path, headers, null, sink);
    if (outcome.status !== 200 || outcome.bytes !== size) {
      throw new Error(`GET ${size}: HTTP ${outcome.status}, ${outcome.bytes} bytes`);
    }
    return outcome;
  }
  const path = `/${target.bucket}/bench/${kind === 'PUT, slow backend' ? 'slow-' : ''}large-upload.bin`;
  const chunked = kind === 'PUT aws-chunked CRC32';
  const source = chunked
    ? new AwsChunkedSource({ total: size, block, algorithm: 'CRC32' })
    : new PlainSource(size, block);
  const bodyHeaders =
    source instanceof AwsChunkedSource
      ? source.headers()
      : { 'x-amz-content-sha256': UNSIGNED_PAYLOAD, 'content-length': String(size) };
  const headers = await signHeaders(target.credential, {
    method: 'PUT',
    endpoint: target.endpoint,
    path,
    headers: { ...bodyHeaders, 'content-type': 'application/octet-stream' },
  });
  const outcome = await send(target.endpoint, 'PUT', path, headers, source);
  if (outcome.status !== 200) throw new Error(`${kind} ${size}: HTTP ${outcome.status}`);
  return { ...outcome, bytes: size };
}

interface MemoryRun {
  readonly kind: Kind;
  readonly size: number;
  readonly mibPerSecond: number;
  /** MiB moved per CPU-second of the gateway process. */
  readonly mibPerGatewayCpuSecond: number;
  readonly baseline: MemoryUsage;
  /** Peak RSS during the warm-up transfer of the same kind. */
  readonly warmupPeakRss: number;
  readonly peak: MemoryUsage;
  readonly samples: number;
  /**
   * Peak RSS during this transfer above the larger of: RSS just before it, and the peak of the
   * small warm-up transfer of the same kind. The second keeps a dip in RSS between transfers (the
   * collector handing pages back) from counting as growth: what is measured is what a large object
   * needs beyond a small one.
   */
  readonly rssGrowthMiB: number;
}

function peakOf(samples: readonly MemoryUsage[], baseline: MemoryUsage): MemoryUsage {
  const peak = { ...baseline };
  for (const sample of samples) {
    for (const field of ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'] as const) {
      peak[field] = Math.max(peak[field], sample[field]);
    }
  }
  return peak;
}

async function measured(
  kind: Kind,
  gateway: GatewayProcess,
  target: Target,
  size: number,
  warmupPeakRss = 0,
): Promise<MemoryRun> {
  await sleep(200);
  const baseline = await gateway.memory();
  const cpuBefore = await gateway.cpuSeconds();
  const stopSampling = gateway.sample(SAMPLE_EVERY_MS);
  let outcome: Outcome;
  let samples: MemoryUsage[];
  try {
    outcome = await transfer(kind, target, size);
    await sleep(SAMPLE_EVERY_MS * 2);
  } finally {
    samples = stopSampling();
  }
  const cpuSeconds = (await gateway.cpuSeconds()) - cpuBefore;
  const peak = peakOf(samples, baseline);
  return {
    kind,
    size,
    mibPerSecond: size / MiB / outcome.seconds,
    mibPerGatewayCpuSecond: size / MiB / cpuSeconds,
    baseline,
    warmupPeakRss,
    peak,
    samples: samples.length,
    rssGrowthMiB: Math.max(0, peak.rss - Math.max(baseline.rss, warmupPeakRss)) / MiB,
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
  gateway: GatewayProcess,
): Promise<Section> {
  const viaGateway: Target = {
    endpoint: gateway.s3Url,
    bucket: gateway.bucket,
    credential: gateway.credential,
  };
  const direct: Target = { ...viaGateway, endpoint: backend.url };
  const warmupPeaks = new Map<Kind, number>();
  for (const kind of [...KINDS, ...SLOW_KINDS]) {
    warmupPeaks.set(kind, (await measured(kind, gateway, viaGateway, WARMUP_BYTES)).peak.rss);
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

  const rows = runs.map((run) => [
    run.kind,
    sizeLabel(run.size),
    round(run.mibPerSecond, 0),
    round(run.mibPerGatewayCpuSecond, 0),
    mib(run.baseline.rss),
    mib(run.warmupPeakRss),
    mib(run.peak.rss),
    round(run.rssGrowthMiB, 1),
    `${mib(run.baseline.heapUsed)} → ${mib(run.peak.heapUsed)}`,
    `${mib(run.baseline.arrayBuffers)} → ${mib(run.peak.arrayBuffers)}`,
  ]);
  for (const run of directRuns) {
    rows.push([
      `${run.kind} direct to backend`,
      sizeLabel(largest),
      round(run.mibPerSecond, 0),
      ...Array<string>(7).fill(''),
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
    title: 'Streaming memory bound: large objects through the gateway, its memory sampled every 50 ms',
    columns: [
      'transfer',
      'size',
      'MiB/s',
      'MiB/gateway CPU-s',
      'RSS before MiB',
      `${WARMUP_BYTES / MiB} MiB peak`,
      'RSS peak MiB',
      'RSS growth MiB',
      'heapUsed MiB',
      'arrayBuffers MiB',
    ],
    rows,
    checks,
    notes: [
      'The gateway runs in its own process (embedded PGlite included, hence its RSS); bodies are generated on the fly.',
      `RSS growth = RSS peak − the larger of RSS before and the peak of a ${WARMUP_BYTES / MiB} MiB transfer of the same kind (run first, as warm-up).`,
      `slow backend / slow client: the far side reads at ${SLOW_PEER_MIB_PER_SECOND} MiB/s while the near side sends as fast as it can.`,
    ],
    data: { runs, direct: directRuns },
  };
}
