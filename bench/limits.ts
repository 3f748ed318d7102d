/**
 * Section `limits`: what the tenant limits (issue 15) cost on the hot path. One gateway (one
 * storage worker) in front of the minimal backend serves the same 4 KiB requests for four
 * tenants, in alternating rounds:
 *
 * - `none`: the first organisation, no limit of any kind;
 * - `prefix`: the same bucket and keys through a credential limited to the key prefix they lie
 *   under, so every request passes the prefix check;
 * - `rates`: an organisation with a request rate limit over every instance and one per credential,
 *   both far above what the load reaches, so every request is admitted by two token buckets;
 * - `quota`: the same organisation's bucket under a storage quota.
 *
 * Every side is held to the target: the gateway's CPU per request at most 5% above `none`. An
 * upload under a quota reserves room and holds its key in PostgreSQL, reading there the size of
 * the object it replaces, then records what the store holds (two statements, exact counting's
 * price, each shared with the uploads under way at the same moment): it is held to the target like
 * the rest, and the report says how far it is from it.
 */
import { randomBytes } from 'node:crypto';
import { addOrganisation } from '../test/support/control-plane.js';
import type { BackendProcess } from './children.js';
import type { Gateway } from './gateway.js';
import { gatewayHooks, measureLoad, type LoadMeasurement } from './load-run.js';
import { median, round, type Check, type Section } from './measure.js';
import { randomBlock } from './body-source.js';
import { SMALL_OBJECT_BYTES, smallRequest, type SmallScenario, type Target } from './requests.js';
import type { Settings } from './settings.js';
import { check } from './targets.js';
import { probe, type ReplayRequest } from './wrk.js';

type Side = 'none' | 'prefix' | 'rates' | 'quota';
const SIDES: readonly Side[] = ['none', 'prefix', 'rates', 'quota'];
const LABELS: Readonly<Record<Exclude<Side, 'none'>, string>> = {
  prefix: 'key limited to a prefix',
  rates: 'rate limits',
  quota: 'bucket under a quota',
};
/** The prefix the `prefix` side's credential is limited to: the benchmark's keys lie under it. */
const PREFIX = 'bench/';
const SCENARIOS: readonly SmallScenario[] = ['GET header-signed', 'PUT header-signed'];
/** Far above what one worker serves: every request is checked, none refused. */
const UNREACHED_RATE = 1_000_000;
/**
 * The keys the uploads go to, in turn: as many clients upload to many keys, two uploads of the
 * load rarely go to the same key at once (an upload under a quota holds its key while it runs, and
 * uploads to one key take turns, which would measure that one key's queue, not the checks).
 */
const UPLOAD_KEYS = 4096;

/** The keys a scenario's requests name: reads of one object, uploads spread over UPLOAD_KEYS keys. */
function keysOf(scenario: SmallScenario): string[] {
  if (scenario.startsWith('GET')) return [`${PREFIX}object-4k.bin`];
  return Array.from({ length: UPLOAD_KEYS }, (_, index) => `${PREFIX}upload-4k-${index}.bin`);
}

/** The tenants' targets: the gateway's own bucket and key, a prefix-scoped key, an organisation with limits. */
async function tenants(gateway: Gateway): Promise<Record<Side, Target>> {
  const admin = await gateway.control();
  const prefixed = await admin.createCredential('benchmark prefix', {
    buckets: [gateway.bucket],
    prefixes: { [gateway.bucket]: [PREFIX] },
    level: 'read-write',
  });
  const suffix = randomBytes(4).toString('hex');
  const tenant = await addOrganisation(admin, `bench-limits-${suffix}`);
  await admin.call(
    'PATCH',
    `/v1/organisation?organisationId=${tenant.organisationId}`,
    { limits: { requestsPerSecond: UNREACHED_RATE, requestBurst: UNREACHED_RATE } },
    200,
  );
  await tenant.owner.call(
    'PATCH',
    '/v1/organisation',
    { limits: { credentialRequestsPerSecond: UNREACHED_RATE, credentialRequestBurst: UNREACHED_RATE } },
    200,
  );
  const rated = `bench-rates-${suffix}`;
  const quoted = `bench-quota-${suffix}`;
  await tenant.owner.createBucket(rated);
  await tenant.owner.createBucket(quoted);
  await tenant.owner.call('PATCH', `/v1/buckets/${quoted}`, { quota: { maxBytes: 2 ** 50 } }, 200);
  const credential = await tenant.owner.createCredential('benchmark limits', {
    buckets: [rated, quoted],
    level: 'read-write',
  });
  const endpoint = gateway.s3Url;
  return {
    none: { endpoint, bucket: gateway.bucket, credential: gateway.credential },
    prefix: { endpoint, bucket: gateway.bucket, credential: prefixed },
    rates: { endpoint, bucket: rated, credential },
    quota: { endpoint, bucket: quoted, credential },
  };
}

/**
 * Runs `run` once per side per round, each round starting one side later (A B C D, B C D A, ...):
 * the first run after a change of scenario measured about 10% more CPU than the others in trials
 * (work left over from the run before), and rotating spreads that over every side alike.
 */
async function rotatingRounds<S extends string, T>(
  sides: readonly S[],
  rounds: number,
  run: (side: S) => Promise<T>,
): Promise<Record<S, T[]>> {
  const results = Object.fromEntries(sides.map((side) => [side, [] as T[]])) as Record<S, T[]>;
  for (let round = 0; round < rounds; round += 1) {
    for (let index = 0; index < sides.length; index += 1) {
      const side = sides[(round + index) % sides.length] as S;
      results[side].push(await run(side));
    }
  }
  return results;
}

/** The gateway's median CPU µs per request over the rounds of one side. */
function cpuOf(runs: readonly LoadMeasurement[]): number {
  return median(runs.map((run) => run.cpuMicrosPerRequest.gateway ?? Number.NaN));
}

function rpsOf(runs: readonly LoadMeasurement[]): number {
  return median(runs.map((run) => run.wrk.requestsPerSecond));
}

export async function runLimits(
  settings: Settings,
  backend: BackendProcess,
  gateway: Gateway,
): Promise<Section> {
  const targets = await tenants(gateway);
  const body = randomBlock(SMALL_OBJECT_BYTES);
  const results: { scenario: SmallScenario; rounds: Record<Side, LoadMeasurement[]> }[] = [];
  for (const scenario of SCENARIOS) {
    const requests = {} as Record<Side, ReplayRequest[]>;
    for (const side of SIDES) {
      requests[side] = [];
      for (const key of keysOf(scenario))
        requests[side].push(await smallRequest(scenario, targets[side], key, body));
    }
    for (const side of SIDES) await probe(gateway.s3Url, requests[side][0] as ReplayRequest);
    const measure = (side: Side) =>
      measureLoad({
        baseUrl: gateway.s3Url,
        request: requests[side],
        connections: settings.floorConnections,
        seconds: settings.loadSeconds,
        warmupSeconds: settings.warmupSeconds,
        parties: [
          { name: 'gateway', roots: [gateway.pid] },
          { name: 'backend', roots: [backend.pid] },
        ],
        ...gatewayHooks(gateway),
      });
    // The first run after a change of scenario pays for work the one before left (rotatingRounds);
    // with one round (--quick) that was always the side without limits, by 30-60% on 2026-11-27.
    // A run of every side that is not kept takes that work on, and warms each side's path alike.
    for (const side of SIDES) await measure(side);
    const rounds = await rotatingRounds(SIDES, settings.rounds, measure);
    results.push({ scenario, rounds });
  }

  const checks: Check[] = [];
  const rows = results.flatMap(({ scenario, rounds }) => {
    const none = cpuOf(rounds.none);
    return (['prefix', 'rates', 'quota'] as const).map((side) => {
      const ratio = cpuOf(rounds[side]) / none;
      const label = `${scenario}, ${LABELS[side]}`;
      checks.push(
        check('LIMITS_MAX_CPU_RATIO', `${label}: gateway CPU per request / no limits'`, round(ratio, 3), '×'),
      );
      return [
        label,
        `${round(ratio, 3).toFixed(3)}×`,
        `${Math.round(cpuOf(rounds[side]))} / ${Math.round(none)}`,
        `${Math.round(rpsOf(rounds[side]))} / ${Math.round(rpsOf(rounds.none))}`,
      ];
    });
  });

  return {
    title: `Tenant limits: 4 KiB objects, ${settings.floorConnections} connections, one gateway worker`,
    columns: ['scenario, limit', 'CPU ×no limits', 'gateway CPU µs/req', 'req/s'],
    rows,
    checks,
    notes: [
      'Each cell: with the limit / without (the first organisation, no limits), both on the same gateway.',
      `Prefix: a credential of the first organisation limited to ${PREFIX} of the same bucket, the keys under it.`,
      `Rate limits: ${UNREACHED_RATE} requests per second for the organisation and for each credential, never reached:`,
      'every request passes two in-memory token buckets. Quota: a bucket of that organisation with a quota of 2^50 bytes.',
      `Medians of ${settings.rounds} round(s) of ${settings.loadSeconds} s (after ${settings.warmupSeconds} s of warm-up) per side, each round starting`,
      'one side later than the one before, after one run of every side that is not kept (the first run after a change',
      'of scenario measured more).',
      `Uploads go to ${UPLOAD_KEYS} keys in turn on every side. An upload under a quota reserves room and holds its key,`,
      'reading the size of the object it replaces, then records what the store holds: two statements in PostgreSQL,',
      'each carrying the uploads of the gateway process under way at the same moment.',
    ],
    data: results.map(({ scenario, rounds }) => ({
      scenario,
      gatewayCpuMicrosPerRequest: Object.fromEntries(SIDES.map((side) => [side, cpuOf(rounds[side])])),
      requestsPerSecond: Object.fromEntries(SIDES.map((side) => [side, rpsOf(rounds[side])])),
      rounds: Object.fromEntries(
        SIDES.map((side) => [side, rounds[side].map(({ peakRss: _peak, ...run }) => run)]),
      ),
    })),
  };
}
