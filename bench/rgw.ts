/**
 * Section `rgw`: the gateway against a real Ceph RGW 16.2, side by side with RGW itself and with
 * the floor (the bare http-proxy-3 of floor-process.mjs, here in front of RGW), twice:
 *
 * - pinned: every thread of every Ceph daemon on core 0 (taskset), the gateway (one storage
 *   worker), the floor and the clients (wrk, and transfer-client-process.mjs for the large
 *   transfers) on core 1: RGW has a core of its own, the proxy shares the other with the client;
 * - unpinned: the gateway with its default worker count, everything free to run anywhere.
 *
 * Each runs 4 KiB presigned GETs and header-signed (UNSIGNED-PAYLOAD) PUTs with wrk at 16 and 64
 * connections, then one large PUT and GET per side, in alternating rounds (RGW, floor, gateway,
 * RGW, …). The floor does not re-sign, so requests sent to it (like those sent to RGW directly) are
 * signed with RGW's own keys, for the floor's host. The objects read are written straight to RGW
 * first, into the gateway's bucket (an RGW bucket of the same name), so they exist for every side
 * and the gateway's memory has seen none of it before its idle reading. RSS of the gateway's
 * processes is read idle after a low-concurrency warm-up (memory.ts) and sampled during its
 * 64-connection runs.
 */
import os from 'node:os';
import { randomBlock } from './body-source.js';
import { rgwUnavailable, startRgw, type Rgw } from './ceph.js';
import { startFloor, startTransferClient, type FloorProcess, type TransferClient } from './children.js';
import type { DatabaseServer } from './database.js';
import { startGateway, type Gateway } from './gateway.js';
import { gatewayHooks, measureLoad, type LoadMeasurement, type Party } from './load-run.js';
import { alternateRounds, median, MiB, round, type Check, type Section } from './measure.js';
import {
  MEMORY_COLUMNS,
  memoryNotes,
  memoryResults,
  warmUpThenIdleRss,
  type MemoryReport,
} from './memory.js';
import { commandName, cpuSecondsOf, processTree, rssBytes, treeRss } from './proc.js';
import { SMALL_OBJECT_BYTES, smallRequest, type SmallScenario, type Target } from './requests.js';
import type { Settings } from './settings.js';
import { largeTransfer, streamPut, transferRequest } from './stream-transfer.js';
import { check, notRun } from './targets.js';
import { pinThreads } from './pinning.js';
import { probe } from './wrk.js';

type Mode = 'pinned' | 'unpinned';
type Side = 'rgw' | 'floor' | 'gateway';
/** The order of the alternating rounds. */
const SIDES: readonly Side[] = ['rgw', 'floor', 'gateway'];
const MODES: readonly Mode[] = ['pinned', 'unpinned'];
const SMALL: readonly { scenario: SmallScenario; key: string }[] = [
  { scenario: 'GET presigned', key: 'bench/object-4k.bin' },
  { scenario: 'PUT header-signed', key: 'bench/upload-4k.bin' },
];
const LARGE_GET_KEY = 'bench/object-large.bin';
const LARGE_PUT_KEY = 'bench/upload-large.bin';
/** Who spends CPU in a large transfer; `client` is transfer-client-process.mjs (it sends and counts the bytes). */
type LargeParty = 'gateway' | 'floor' | 'ceph' | 'client';
/** The parties on each side's path (the others idle meanwhile). */
const ON_PATH: Readonly<Record<Side, readonly LargeParty[]>> = {
  rgw: ['ceph', 'client'],
  floor: ['floor', 'ceph', 'client'],
  gateway: ['gateway', 'ceph', 'client'],
};
const SIDE_LABEL: Readonly<Record<Side, string>> = {
  rgw: 'RGW directly',
  floor: 'via the floor',
  gateway: 'via the gateway',
};

function sizeLabel(bytes: number): string {
  return bytes >= 1024 * MiB ? `${bytes / (1024 * MiB)} GiB` : `${bytes / MiB} MiB`;
}

/** The targets this section would check, as "not run" with `reason`. */
export function rgwNotRun(settings: Settings, reason: string): Check[] {
  const large = sizeLabel(settings.rgwLargeBytes);
  return [
    ...settings.rgwConnections.flatMap((connections) => [
      notRun(
        'RGW_PINNED_MIN_GET_RPS_PERCENT',
        `RGW pinned: 4 KiB GET c=${connections}: req/s, % of RGW's`,
        '%',
        reason,
      ),
      notRun(
        'RGW_PINNED_MAX_ADDED_P50_MS',
        `RGW pinned: 4 KiB GET c=${connections}: p50 added`,
        'ms',
        reason,
      ),
    ]),
    ...MODES.flatMap((mode) =>
      ['PUT', 'GET'].map((op) =>
        notRun(
          'RGW_MIN_LARGE_THROUGHPUT_PERCENT',
          `RGW ${mode}: ${large} ${op}: MiB/s, % of RGW's`,
          '%',
          reason,
        ),
      ),
    ),
    notRun('MAX_IDLE_RSS_MIB_PER_WORKER', 'RGW: gateway idle RSS per storage worker', 'MiB', reason),
    notRun(
      'MAX_RSS_GROWTH_MIB_UNDER_LOAD',
      'RGW: gateway RSS growth per storage worker under 64 connections',
      'MiB',
      reason,
    ),
  ];
}

interface SmallResult {
  readonly scenario: SmallScenario;
  readonly connections: number;
  readonly rounds: Record<Side, LoadMeasurement[]>;
}

interface LargeRun {
  readonly mibPerSecond: number;
  /** CPU seconds per GiB moved of each party, whether on this side's path or idle. */
  readonly cpuSecondsPerGiB: Record<LargeParty, number>;
}

interface LargeResult {
  readonly op: 'PUT' | 'GET';
  readonly rounds: Record<Side, LargeRun[]>;
}

const ms = (value: number) => value.toFixed(2);
const sum = (values: Iterable<number>) => [...values].reduce((total, value) => total + value, 0);

/** Whether each Ceph daemon still runs: for an error message. */
function diagnoseRgw(rgw: Rgw): string {
  const daemons = rgw
    .pids()
    .map((pid) => `${pid} ${commandName(pid)} ${rssBytes(pid) === null ? 'gone' : 'running'}`);
  return `Ceph daemons: ${daemons.join(', ')}`;
}

/** `everyCore`: the cores this process may run on (`0-1`), read before anything was pinned. */
async function runMode(
  mode: Mode,
  settings: Settings,
  rgw: Rgw,
  database: DatabaseServer | null,
  everyCore: string,
): Promise<Section[]> {
  await rgw.pin(mode === 'pinned' ? '0' : everyCore);
  const cpus = mode === 'pinned' ? '1' : undefined;
  // The client on the proxy's core, not free to run on RGW's: a client the scheduler moves onto
  // RGW's core takes RGW's time, more so beside a busy proxy (BENCHMARKS.md, "Pinning"). This
  // process is the large transfers' client, and every wrk it starts inherits its cores; runRgw
  // gives it every core back, however the mode ends.
  await pinThreads(process.pid, cpus ?? everyCore);
  const gateway: Gateway = await startGateway({
    backend: rgw.backend,
    database,
    ...(cpus === undefined ? {} : { cpus, workers: 1 }),
  });
  let floor: FloorProcess | null = null;
  let client: TransferClient | null = null;
  try {
    const afterStart = treeRss(gateway.pid);
    floor = await startFloor(rgw.backend.url, cpus);
    // Started after this process was pinned: it inherits the client's cores.
    client = await startTransferClient();
    const rgwKeys = { accessKeyId: rgw.backend.accessKeyId, secret: rgw.backend.secretAccessKey };
    const targets: Record<Side, Target> = {
      rgw: { endpoint: rgw.backend.url, bucket: gateway.bucket, credential: rgwKeys },
      floor: { endpoint: floor.url, bucket: gateway.bucket, credential: rgwKeys },
      gateway: { endpoint: gateway.s3Url, bucket: gateway.bucket, credential: gateway.credential },
    };
    const body = randomBlock(SMALL_OBJECT_BYTES);
    // The objects to read, written straight to RGW (a header-signed PUT, then a stream).
    await probe(
      rgw.backend.url,
      await smallRequest('PUT header-signed', targets.rgw, 'bench/object-4k.bin', body),
    );
    await streamPut(targets.rgw, LARGE_GET_KEY, settings.rgwLargeBytes);

    const requests = new Map<SmallScenario, Record<Side, Awaited<ReturnType<typeof smallRequest>>>>();
    for (const { scenario, key } of SMALL) {
      const signed = {} as Record<Side, Awaited<ReturnType<typeof smallRequest>>>;
      for (const side of SIDES) signed[side] = await smallRequest(scenario, targets[side], key, body);
      requests.set(scenario, signed);
    }
    // Warm-up at low concurrency, then the idle reading the memory targets start from.
    const idle = await warmUpThenIdleRss(
      gateway,
      SMALL.map(({ scenario }) => requests.get(scenario)?.gateway).filter((r) => r !== undefined),
    );

    const parties: Record<Exclude<LargeParty, 'client'>, Party> = {
      ceph: { name: 'ceph', roots: rgw.pids() },
      gateway: { name: 'gateway', roots: [gateway.pid] },
      floor: { name: 'floor', roots: [floor.pid] },
    };
    const diagnose: Record<Side, () => string> = {
      rgw: () => diagnoseRgw(rgw),
      floor: () => `${(floor as FloorProcess).diagnose()}\n${diagnoseRgw(rgw)}`,
      gateway: () => `${gateway.diagnose()}\n${diagnoseRgw(rgw)}`,
    };
    const small: SmallResult[] = [];
    const peaks: MemoryReport['peaks'][number][] = [];
    for (const { scenario } of SMALL) {
      const signed = requests.get(scenario) as Record<Side, Awaited<ReturnType<typeof smallRequest>>>;
      for (const side of SIDES) await probe(targets[side].endpoint, signed[side]);
      for (const connections of settings.rgwConnections) {
        const rounds = await alternateRounds(SIDES, settings.rounds, (side) =>
          measureLoad({
            baseUrl: targets[side].endpoint,
            request: signed[side],
            connections,
            seconds: settings.loadSeconds,
            warmupSeconds: settings.warmupSeconds,
            parties: [parties.ceph, parties.gateway, parties.floor],
            ...(side === 'gateway' ? gatewayHooks(gateway) : {}),
            diagnose: diagnose[side],
            ...(side === 'gateway' && connections === settings.memoryConnections
              ? { sampleRssOf: gateway.pid }
              : {}),
          }),
        );
        for (const run of rounds.gateway) {
          if (run.peakRss !== undefined)
            peaks.push({ label: `${scenario} c=${connections}`, peak: run.peakRss });
        }
        small.push({ scenario, connections, rounds });
      }
    }

    const large: LargeResult[] = [];
    const gib = settings.rgwLargeBytes / (1024 * MiB);
    const serverCpu = () => ({
      gateway: sum(cpuSecondsOf(processTree(gateway.pid)).values()),
      floor: sum(cpuSecondsOf(processTree((floor as FloorProcess).pid)).values()),
      ceph: sum(cpuSecondsOf(rgw.pids().flatMap((pid) => processTree(pid))).values()),
    });
    for (const op of ['PUT', 'GET'] as const) {
      const rounds = await alternateRounds(SIDES, settings.rgwLargeRounds, async (side) => {
        const key = op === 'PUT' ? LARGE_PUT_KEY : LARGE_GET_KEY;
        const request = await transferRequest(targets[side], op, key, settings.rgwLargeBytes);
        const before = serverCpu();
        const outcome = await largeTransfer(client as TransferClient, request, settings.rgwLargeBytes);
        const after = serverCpu();
        return {
          mibPerSecond: settings.rgwLargeBytes / MiB / outcome.seconds,
          cpuSecondsPerGiB: {
            gateway: (after.gateway - before.gateway) / gib,
            floor: (after.floor - before.floor) / gib,
            ceph: (after.ceph - before.ceph) / gib,
            client: outcome.cpuSeconds / gib,
          },
        };
      });
      large.push({ op, rounds });
    }

    return report(mode, settings, gateway, rgw, small, large, { afterStart, idle, peaks });
  } finally {
    await client?.stop();
    await floor?.stop();
    await gateway.stop();
  }
}

function report(
  mode: Mode,
  settings: Settings,
  gateway: Gateway,
  rgw: Rgw,
  small: readonly SmallResult[],
  large: readonly LargeResult[],
  memory: MemoryReport,
): Section[] {
  const checks: Check[] = [];
  const rows: (string | number)[][] = [];
  const us = (value: number) => String(Math.round(value));
  for (const { scenario, connections, rounds } of small) {
    const of = (side: Side, pick: (run: LoadMeasurement) => number) => median(rounds[side].map(pick));
    const rps = (side: Side) => of(side, (run) => run.wrk.requestsPerSecond);
    const p50 = (side: Side) => of(side, (run) => run.wrk.p50Ms);
    const p99 = (side: Side) => of(side, (run) => run.wrk.p99Ms);
    const cpu = (side: Side, party: string) =>
      of(side, (run) => run.cpuMicrosPerRequest[party] ?? Number.NaN);
    const percent = (side: Side) => (100 * rps(side)) / rps('rgw');
    const added = (side: Side) => p50(side) - p50('rgw');
    const three = (value: (side: Side) => string) =>
      `${value('gateway')} / ${value('floor')} / ${value('rgw')}`;
    rows.push([
      `4 KiB ${scenario}`,
      connections,
      `${Math.round(percent('gateway'))}%`,
      `${Math.round(percent('floor'))}%`,
      `${ms(added('gateway'))} / ${ms(added('floor'))}`,
      three((side) => String(Math.round(rps(side)))),
      three((side) => ms(p50(side))),
      three((side) => ms(p99(side))),
      `${us(cpu('gateway', 'gateway'))} / ${us(cpu('floor', 'floor'))}`,
      three((side) => us(cpu(side, 'ceph'))),
    ]);
    if (mode === 'pinned' && scenario.startsWith('GET')) {
      const label = `RGW pinned: 4 KiB GET c=${connections}`;
      checks.push(
        check(
          'RGW_PINNED_MIN_GET_RPS_PERCENT',
          `${label}: req/s, % of RGW's`,
          round(percent('gateway'), 0),
          '%',
        ),
        check('RGW_PINNED_MAX_ADDED_P50_MS', `${label}: p50 added`, round(added('gateway'), 2), 'ms'),
      );
    }
  }

  const size = sizeLabel(settings.rgwLargeBytes);
  const largeRows: (string | number)[][] = [];
  for (const { op, rounds } of large) {
    const rate = (side: Side) => median(rounds[side].map((run) => run.mibPerSecond));
    for (const side of SIDES) {
      const cpu = (party: LargeParty) => median(rounds[side].map((run) => run.cpuSecondsPerGiB[party]));
      const cell = (party: LargeParty) =>
        ON_PATH[side].includes(party) ? round(cpu(party), 2).toFixed(2) : '';
      largeRows.push([
        `${size} ${op}`,
        SIDE_LABEL[side],
        Math.round(rate(side)),
        `${Math.round((100 * rate(side)) / rate('rgw'))}%`,
        cell('gateway'),
        cell('floor'),
        cell('ceph'),
        cell('client'),
        round(sum(ON_PATH[side].map(cpu)), 2).toFixed(2),
      ]);
    }
    checks.push(
      check(
        'RGW_MIN_LARGE_THROUGHPUT_PERCENT',
        `RGW ${mode}: ${size} ${op}: MiB/s, % of RGW's`,
        round((100 * rate('gateway')) / rate('rgw'), 0),
        '%',
      ),
    );
  }

  const memoryTable = memoryResults(gateway, memory, `RGW ${mode}`);
  checks.push(...memoryTable.checks);
  const processes = gateway.processes();
  const workers = processes.filter((pid) => gateway.role(pid) === 'storage worker').length;
  const placement =
    mode === 'pinned'
      ? 'Ceph daemons on core 0 (taskset -a -p -c 0); gateway (GATEWAY_WORKERS=1), floor, wrk and the large transfers’ client on core 1'
      : `nothing pinned; gateway with its default worker count (${workers} storage worker${workers === 1 ? '' : 's'})`;
  const rounds = `Medians of ${settings.rounds} alternating round(s) (RGW, floor, gateway) of ${settings.loadSeconds} s after ${settings.warmupSeconds} s of warm-up, wrk with 1 thread.`;
  return [
    {
      title: `Gateway and floor vs Ceph RGW, ${mode}, 4 KiB: ${placement}`,
      columns: [
        'operation',
        'conc.',
        'gw %RGW',
        'floor %RGW',
        '+p50 ms gw / floor',
        'req/s gw / floor / RGW',
        'p50 ms gw / floor / RGW',
        'p99 ms gw / floor / RGW',
        'proxy CPU µs/req gw / floor',
        'Ceph CPU µs/req gw / floor / RGW',
      ],
      rows,
      checks: checks.filter((item) => item.target.constant.startsWith('RGW_PINNED')),
      notes: [
        `${rgw.version}; gateway in ${gateway.mode} mode. ${rounds}`,
        'gw: through the gateway (its own credential); floor: through a bare http-proxy-3 with a keep-alive agent in front of',
        'RGW (floor-process.mjs, no re-signing, so its requests are signed with RGW’s own keys, as those sent to RGW directly).',
        '4 KiB GET presigned, PUT header-signed UNSIGNED-PAYLOAD, each signed once and replayed by wrk.',
        'Proxy CPU: the gateway’s main process and storage workers, or the floor. Ceph CPU: monitor + OSD + radosgw, per request of each side.',
        'The targets compare the gateway with RGW; the floor shows what any Node proxy hop costs here.',
      ],
      data: {
        mode,
        gatewayMode: gateway.mode,
        gatewayProcesses: processes.map((pid) => ({ pid, role: gateway.role(pid) })),
        small: small.map(({ scenario, connections, rounds: byside }) => ({
          scenario,
          connections,
          rounds: Object.fromEntries(
            SIDES.map((side) => [side, byside[side].map(({ peakRss: _peak, ...run }) => run)]),
          ),
        })),
      },
    },
    {
      title: `${size} transfers, ${mode}: one stream each, throughput and CPU seconds per GiB of each process`,
      columns: [
        'transfer',
        'path',
        'MiB/s',
        '%RGW',
        'gateway s/GiB',
        'floor s/GiB',
        'Ceph s/GiB',
        'client s/GiB',
        'all s/GiB',
      ],
      rows: largeRows,
      checks: checks.filter((item) => item.target.constant === 'RGW_MIN_LARGE_THROUGHPUT_PERCENT'),
      notes: [
        `Medians of ${settings.rgwLargeRounds} alternating round(s) (RGW, floor, gateway), one ${size} stream each, header-signed (UNSIGNED-PAYLOAD PUT),`,
        'sent from one repeated block and counted and dropped on arrival by the client (transfer-client-process.mjs, a bare socket).',
        'CPU seconds (user + system, /proc) per GiB moved: gateway = its main process and storage workers; floor = the bare',
        'http-proxy-3; Ceph = monitor + OSD + radosgw; client = its own process.cpuUsage() over the transfer. Blank: not on that path.',
      ],
      data: { large },
    },
    {
      title: `Gateway memory in front of RGW, ${mode}: RSS per process`,
      columns: MEMORY_COLUMNS,
      rows: memoryTable.rows,
      checks: checks.filter((item) => item.target.constant.startsWith('MAX_')),
      notes: memoryNotes(
        `4 KiB ${SMALL.map(({ scenario }) => scenario).join(' and ')} through the gateway`,
        `its ${settings.rounds} × ${settings.loadSeconds} s runs of each at ${settings.memoryConnections} connections (wrk; the 1 s warm-up before each not sampled)`,
      ),
      data: {
        afterStart: Object.fromEntries(memory.afterStart),
        idle: Object.fromEntries(memory.idle),
        peaks: memory.peaks.map(({ label, peak }) => ({ label, peak: Object.fromEntries(peak) })),
        roles: Object.fromEntries([...memory.idle.keys()].map((pid) => [pid, gateway.role(pid)])),
      },
    },
  ];
}

/**
 * Both modes; hands each section to `emit` as soon as it is measured. Returns null, or why RGW
 * cannot run here (the caller then marks the targets not run).
 */
export async function runRgw(
  settings: Settings,
  database: DatabaseServer | null,
  emit: (section: Section) => void,
): Promise<string | null> {
  const unavailable = rgwUnavailable();
  if (unavailable !== null) return unavailable;
  const cores = os.availableParallelism();
  if (cores < 2) return 'pinning needs at least 2 cores';
  const everyCore = `0-${cores - 1}`;
  const started = Date.now();
  const rgw = await startRgw();
  console.log(
    `  Ceph RGW up at ${rgw.backend.url} in ${((Date.now() - started) / 1000).toFixed(1)} s (${rgw.version})`,
  );
  try {
    for (const mode of MODES) {
      for (const section of await runMode(mode, settings, rgw, database, everyCore)) emit(section);
    }
    return null;
  } finally {
    await pinThreads(process.pid, everyCore);
    await rgw.stop();
  }
}
