/**
 * `npm run bench:ab -- --before=<commit> [--scenario=<name>] [--runs=<n>] [--seconds=<n>] [--quota]
 * [--keys=<n>]`: what a change does to the gateway's CPU per request, this checkout's code against
 * `<commit>`'s, in front of the minimal backend. On this kind of machine the CPU time charged for
 * the same work drifts by up to 2× within a minute (BENCHMARKS.md, "Two instances at once"), so the
 * two builds are not measured in turn: both run at the same moment, one storage worker each on the
 * same core, each with its own wrk at 32 connections, and the report gives, per 4 KiB scenario, the
 * median over `runs` runs of the CPU per request of the commit's build over this checkout's (above
 * 1: the change saves). Two identical builds measured a median of 1.007 over ten runs this way
 * (single runs 0.96-1.20): a median moves by a percent or two, so only what is larger says
 * anything.
 *
 * The commit is built in a git worktree of its own with this checkout's node_modules, and each
 * gateway runs on a fresh database (PostgreSQL required, as for `limits`). With `--quota`, the
 * bucket is under an ample storage quota and uploads go to 4,096 keys in turn, as in the `limits`
 * section: what a change does to the leased path; `--keys` sets how many keys uploads go to (1:
 * every client writes one key). No targets: a tool for deciding whether a change is worth keeping,
 * not a section of `npm run bench`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MINIMAL_BACKEND_KEYS, startBackend } from './children.js';
import { cleanUpOnInterruptOrCrash, onCleanup, runCommand } from './cleanup.js';
import { findDatabaseServer } from './database.js';
import { startGateway, type Gateway } from './gateway.js';
import { gatewayLoad, measureTogether } from './load-run.js';
import { median } from './measure.js';
import { randomBlock } from './body-source.js';
import { SMALL_OBJECT_BYTES, SMALL_SCENARIOS, type SmallScenario } from './requests.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The core both gateways run on (wrk and the backend on the other). */
const GATEWAYS_CPU = '1';
const CONNECTIONS = 32;
/** Each run, unless --seconds says otherwise: longer runs average over more garbage collections. */
const RUN_SECONDS = 2;
const WARMUP_SECONDS = 1;

interface Arguments {
  readonly before: string;
  readonly scenarios: readonly SmallScenario[];
  readonly runs: number;
  readonly seconds: number;
  readonly quota: boolean;
  readonly keys: number;
}

/** Keys the uploads of `--quota` go to in turn: two uploads of the load rarely go to one key at once. */
const QUOTA_UPLOAD_KEYS = 4096;
/** Keys uploads go to in turn otherwise. */
const UPLOAD_KEYS = 1;

function parseArguments(argv: readonly string[]): Arguments {
  let before: string | undefined;
  let scenarios: SmallScenario[] = [...SMALL_SCENARIOS];
  let runs = 10;
  let quota = false;
  let seconds = RUN_SECONDS;
  let keys: number | undefined;
  for (const argument of argv) {
    const [name, value = ''] = argument.split(/=(.*)/s);
    if (name === '--before') before = value;
    else if (name === '--quota' && value === '') quota = true;
    else if (name === '--runs') runs = Number(value);
    else if (name === '--seconds') seconds = Number(value);
    else if (name === '--keys') keys = Number(value);
    else if (name === '--scenario') {
      if (!(SMALL_SCENARIOS as readonly string[]).includes(value))
        throw new Error(`unknown scenario "${value}"; one of: ${SMALL_SCENARIOS.join(', ')}`);
      scenarios = [value as SmallScenario];
    } else throw new Error(`unknown argument ${argument}`);
  }
  if (before === undefined || before === '') throw new Error('--before=<commit> is required');
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number of at least 1');
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new Error('--seconds must be a whole number of at least 1');
  keys ??= quota ? QUOTA_UPLOAD_KEYS : UPLOAD_KEYS;
  if (!Number.isInteger(keys) || keys < 1) throw new Error('--keys must be a whole number of at least 1');
  return { before, scenarios, runs, seconds, quota, keys };
}

/** `commit` built into a worktree of its own (removed at exit): the folder to run. */
function buildCommit(commit: string): string {
  const worktree = mkdtempSync(path.join(tmpdir(), 'gw-bench-ab-'));
  rmSync(worktree, { recursive: true });
  execFileSync('git', ['worktree', 'add', '--detach', worktree, commit], { cwd: ROOT, stdio: 'ignore' });
  onCleanup(async () => {
    execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: ROOT, stdio: 'ignore' });
  });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(worktree, 'node_modules'));
  execFileSync(process.execPath, ['scripts/build.mjs', '.bench-dist'], { cwd: worktree, stdio: 'ignore' });
  return path.join(worktree, '.bench-dist');
}

async function main(): Promise<number> {
  const args = parseArguments(process.argv.slice(2));
  cleanUpOnInterruptOrCrash();
  const database = await findDatabaseServer();
  if (database === null)
    throw new Error('no PostgreSQL answers: bench:ab runs the gateways in production mode');
  const commitBuild = buildCommit(args.before);
  console.log(`built ${args.before} into ${commitBuild}`);
  const backend = await startBackend();
  const start = (build?: string) =>
    startGateway({
      backend: { url: backend.url, ...MINIMAL_BACKEND_KEYS },
      workers: 1,
      database,
      cpus: GATEWAYS_CPU,
      ...(build === undefined ? {} : { build }),
    });
  const before = await start(commitBuild);
  const after = await start();
  if (args.quota)
    for (const gateway of [before, after]) {
      const admin = await gateway.control();
      await admin.call('PATCH', `/v1/buckets/${gateway.bucket}`, { quota: { maxBytes: 2 ** 50 } }, 200);
    }
  const body = randomBlock(SMALL_OBJECT_BYTES);
  console.log(
    `\nCPU per request of ${args.before} over this checkout's (median of ${args.runs} runs at once${args.quota ? ', the bucket under a quota' : ''}):`,
  );
  for (const scenario of args.scenarios) {
    const keys = scenario.startsWith('GET')
      ? ['bench/object-4k.bin']
      : Array.from({ length: args.keys }, (_, index) => `bench/upload-4k-${index}.bin`);
    const run = { connections: CONNECTIONS, seconds: args.seconds, warmupSeconds: WARMUP_SECONDS };
    const load = (gateway: Gateway) =>
      gatewayLoad(
        gateway,
        scenario,
        { bucket: gateway.bucket, credential: gateway.credential },
        keys,
        body,
        run,
      );
    const loads = [await load(before), await load(after)];
    // The first run after a change of scenario pays for work left by the one before: not kept.
    await measureTogether(loads);
    const runs: { before: number; after: number; beforeRate: number; afterRate: number }[] = [];
    for (let index = 0; index < args.runs; index += 1) {
      const [onBefore, onAfter] = await measureTogether(loads);
      runs.push({
        beforeRate: onBefore?.wrk.requestsPerSecond ?? Number.NaN,
        afterRate: onAfter?.wrk.requestsPerSecond ?? Number.NaN,
        before: onBefore?.cpuMicrosPerRequest.gateway ?? Number.NaN,
        after: onAfter?.cpuMicrosPerRequest.gateway ?? Number.NaN,
      });
    }
    const ratios = runs.map((run) => run.before / run.after);
    console.log(
      `  ${scenario.padEnd(22)} ${median(ratios).toFixed(3)}×  (runs ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}; ` +
        `µs per request ${Math.round(median(runs.map((run) => run.before)))} / ${Math.round(median(runs.map((run) => run.after)))}; ` +
        `req/s ${Math.round(median(runs.map((run) => run.beforeRate)))} / ${Math.round(median(runs.map((run) => run.afterRate)))})`,
    );
  }
  await after.stop();
  await before.stop();
  await backend.stop();
  await database.close();
  return 0;
}

runCommand(main);
