/**
 * `npm run bench:pairs -- --sides=<a>,<b> [--scenario=<name>] [--pairs=<n>] [--seconds=<n>]`: what
 * side `b` of the `limits` section costs against side `a` (none, prefix, rates, quota, all), on
 * this checkout's build. Two instances of the gateway (one storage worker each, one database, on
 * one core) serve `a` on one and `b` on the other at the same moment, then the other way round (a
 * pair, as in `limits`); each pair's ratio is the geometric mean of `b`'s CPU per request over
 * `a`'s on both instances, in which what differs between the instances cancels. It prints every
 * pair and the median. Where the `limits` section measures every side against none in short runs,
 * this looks at one difference with longer runs: it found the rates' token buckets costing 1.6
 * points (BENCHMARKS.md, change 34). No targets; needs PostgreSQL.
 */
import { MINIMAL_BACKEND_KEYS, startBackend } from './children.js';
import { cleanUpOnInterruptOrCrash, runCommand } from './cleanup.js';
import { findDatabaseServer } from './database.js';
import { startGateway, type Gateway } from './gateway.js';
import { keysOf, SIDES, tenants, type Side } from './limits.js';
import { gatewayLoad, measureTogether, type LoadMeasurement } from './load-run.js';
import { median } from './measure.js';
import { randomBlock } from './body-source.js';
import { SMALL_OBJECT_BYTES, type SmallScenario } from './requests.js';

/** The core both instances run on (wrk and the backend on the other), as in `limits`. */
const INSTANCES_CPU = '1';
const CONNECTIONS = 32;
const WARMUP_SECONDS = 1;
const SCENARIOS: readonly SmallScenario[] = ['GET header-signed', 'PUT header-signed'];

interface Arguments {
  readonly sides: readonly [Side, Side];
  readonly scenario: SmallScenario;
  readonly pairs: number;
  readonly seconds: number;
}

function parseArguments(argv: readonly string[]): Arguments {
  let sides: [Side, Side] | undefined;
  let scenario: SmallScenario = 'PUT header-signed';
  let pairs = 5;
  let seconds = 4;
  for (const argument of argv) {
    const [name, value = ''] = argument.split(/=(.*)/s);
    if (name === '--sides') {
      const named = value.split(',');
      if (named.length !== 2 || !named.every((side) => (SIDES as readonly string[]).includes(side)))
        throw new Error(`--sides names two of ${SIDES.join(', ')}, e.g. --sides=none,quota`);
      sides = named as [Side, Side];
    } else if (name === '--scenario') {
      if (!(SCENARIOS as readonly string[]).includes(value))
        throw new Error(`unknown scenario "${value}"; one of: ${SCENARIOS.join(', ')}`);
      scenario = value as SmallScenario;
    } else if (name === '--pairs') pairs = Number(value);
    else if (name === '--seconds') seconds = Number(value);
    else throw new Error(`unknown argument ${argument}`);
  }
  if (sides === undefined) throw new Error('--sides=<a>,<b> is required, e.g. --sides=none,quota');
  if (!Number.isInteger(pairs) || pairs < 1) throw new Error('--pairs must be a whole number of at least 1');
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new Error('--seconds must be a whole number of at least 1');
  return { sides, scenario, pairs, seconds };
}

const cpuOf = (run: LoadMeasurement | undefined): number => run?.cpuMicrosPerRequest.gateway ?? Number.NaN;

async function main(): Promise<number> {
  const args = parseArguments(process.argv.slice(2));
  cleanUpOnInterruptOrCrash();
  const database = await findDatabaseServer();
  if (database === null)
    throw new Error('no PostgreSQL answers: bench:pairs runs two instances on one database');
  const backend = await startBackend();
  const start = (twinOf?: Gateway) =>
    startGateway({
      backend: { url: backend.url, ...MINIMAL_BACKEND_KEYS },
      workers: 1,
      database,
      cpus: INSTANCES_CPU,
      ...(twinOf === undefined ? {} : { twinOf }),
    });
  const first = await start();
  const second = await start(first);
  const instances = [first, second] as const;
  const targets = await tenants(first);
  const body = randomBlock(SMALL_OBJECT_BYTES);
  const run = { connections: CONNECTIONS, seconds: args.seconds, warmupSeconds: WARMUP_SECONDS };
  const load = (gateway: Gateway, side: Side) =>
    gatewayLoad(gateway, args.scenario, targets[side], keysOf(args.scenario), body, run);
  const [a, b] = args.sides;
  const straight = [await load(instances[0], a), await load(instances[1], b)];
  const swapped = [await load(instances[0], b), await load(instances[1], a)];
  // The first runs after the set-up pay for work it left: not kept.
  await measureTogether(straight);
  await measureTogether(swapped);
  console.log(`\n${args.scenario}: CPU per request of ${b} over ${a} (pairs of ${args.seconds} s at once):`);
  const ratios: number[] = [];
  for (let index = 0; index < args.pairs; index += 1) {
    const [aFirst, bSecond] = await measureTogether(straight);
    const [bFirst, aSecond] = await measureTogether(swapped);
    const ratio = Math.sqrt((cpuOf(bSecond) / cpuOf(aFirst)) * (cpuOf(bFirst) / cpuOf(aSecond)));
    ratios.push(ratio);
    console.log(
      `  pair ${index + 1}: ${ratio.toFixed(3)}×  (µs per request: ${a} ${Math.round(cpuOf(aFirst))}, ` +
        `${Math.round(cpuOf(aSecond))}; ${b} ${Math.round(cpuOf(bSecond))}, ${Math.round(cpuOf(bFirst))})`,
    );
  }
  console.log(
    `  median ${median(ratios).toFixed(3)}× (pairs ${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`,
  );
  await second.stop();
  await first.stop();
  await backend.stop();
  await database.close();
  return 0;
}

runCommand(main);
