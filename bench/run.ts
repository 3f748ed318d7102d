/**
 * `npm run bench [-- --quick] [-- --only=sigv4,floor,limits,memory,stream,rgw]`: runs the benchmarks,
 * prints a table per section and the targets line by line, writes bench/results/latest.json, and
 * exits 1 when a target is missed, 2 when a section could not run (or `rgw` was asked for with
 * --only on a machine without Ceph).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { MINIMAL_BACKEND_KEYS, startBackend, startFloor, startPassThrough } from './children.js';
import { cleanUpOnInterruptOrCrash, runCommand } from './cleanup.js';
import { findDatabaseServer } from './database.js';
import { runFloor } from './floor.js';
import { runLimits } from './limits.js';
import { buildGateway, startGateway, type GatewayOptions } from './gateway.js';
import { describeMachine, printMachine } from './machine.js';
import { passes, type Check, type Section } from './measure.js';
import { runMemory } from './memory.js';
import { treeRss } from './proc.js';
import { printSection, printTargets } from './report.js';
import { rgwNotRun, runRgw } from './rgw.js';
import { FULL, QUICK } from './settings.js';
import { runSigV4 } from './sigv4.js';
import { runStreaming } from './streaming.js';

const BENCHMARKS = ['sigv4', 'floor', 'limits', 'memory', 'stream', 'rgw'] as const;
type Benchmark = (typeof BENCHMARKS)[number];

function parseArguments(argv: readonly string[]): {
  quick: boolean;
  only: Set<Benchmark>;
  explicit: boolean;
} {
  let quick = false;
  let only = new Set<Benchmark>(BENCHMARKS);
  let explicit = false;
  for (const argument of argv) {
    if (argument === '--quick') quick = true;
    else if (argument.startsWith('--only=')) {
      const names = argument.slice('--only='.length).split(',');
      const unknown = names.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
      if (unknown.length > 0)
        throw new Error(`unknown benchmark ${unknown.join(', ')}; have ${BENCHMARKS.join(', ')}`);
      only = new Set(names as Benchmark[]);
      explicit = true;
    } else throw new Error(`unknown argument ${argument}; use --quick and/or --only=${BENCHMARKS.join(',')}`);
  }
  return { quick, only, explicit };
}

async function main(): Promise<number> {
  const { quick, only, explicit } = parseArguments(process.argv.slice(2));
  cleanUpOnInterruptOrCrash();
  const settings = quick ? QUICK : FULL;
  const startedAt = new Date();
  const machine = describeMachine();
  printMachine(machine, quick);

  const sections: Section[] = [];
  const extraChecks: Check[] = [];
  const failures: string[] = [];
  const emit = (section: Section) => {
    printSection(section);
    sections.push(section);
  };
  /** Runs one section; a failure is reported (null) and the others still run. */
  const attempt = async <T>(name: string, body: () => Promise<T>): Promise<T | null> => {
    try {
      return await body();
    } catch (error) {
      failures.push(name);
      console.error(
        `\n## ${name}: could not run\n${error instanceof Error ? (error.stack ?? error.message) : error}`,
      );
      return null;
    }
  };

  if (only.has('sigv4')) await attempt('sigv4', async () => emit(await runSigV4(settings)));

  const needsGateway = ['floor', 'limits', 'memory', 'stream', 'rgw'].some((name) =>
    only.has(name as Benchmark),
  );
  const database = needsGateway ? await findDatabaseServer() : null;
  if (needsGateway) {
    console.log(
      database === null
        ? '\n  no PostgreSQL answers (BENCH_DATABASE_URL, postgres@127.0.0.1:5432): the gateway runs in development mode (embedded PGlite in its process)'
        : `\n  the gateway runs in production mode on a fresh database per start (${database.description})`,
    );
    await attempt('build', async () => buildGateway());
  }

  const minimalBackendSections = ['floor', 'limits', 'memory', 'stream'] as const;
  if (!failures.includes('build') && minimalBackendSections.some((name) => only.has(name))) {
    // Gateways with one storage worker in front of the minimal backend: one for `floor` and
    // `stream`, two instances of one deployment for `limits`, and a fresh one for `memory`, whose
    // idle reading must not depend on what ran before (a gateway's RSS keeps the high-water mark of
    // the loads it has served).
    const startOneWorker = (backendUrl: string, more: Partial<GatewayOptions> = {}) =>
      startGateway({ backend: { url: backendUrl, ...MINIMAL_BACKEND_KEYS }, workers: 1, database, ...more });
    const stack = await attempt('minimal backend set-up', async () => {
      const backend = await startBackend();
      const floor = only.has('floor') ? await startFloor(backend.url) : null;
      const passThrough = only.has('floor') ? await startPassThrough(backend.url) : null;
      return { backend, floor, passThrough };
    });
    if (stack !== null) {
      const { backend, floor, passThrough } = stack;
      if (floor !== null || only.has('stream')) {
        const gateway = await attempt('gateway start', () => startOneWorker(backend.url));
        if (gateway !== null) {
          if (floor !== null && passThrough !== null)
            await attempt('floor', async () =>
              emit(await runFloor(settings, backend, { floor, passThrough }, gateway)),
            );
          if (only.has('stream'))
            await attempt('stream', async () => emit(await runStreaming(settings, backend, gateway)));
          await gateway.stop();
        }
      }
      await floor?.stop();
      await passThrough?.stop();
      if (only.has('limits'))
        await attempt('limits', async () =>
          emit(await runLimits(settings, (more) => startOneWorker(backend.url, more))),
        );
      if (only.has('memory')) {
        await attempt('memory', async () => {
          const gateway = await startOneWorker(backend.url);
          try {
            emit(await runMemory(settings, gateway, treeRss(gateway.pid)));
          } finally {
            await gateway.stop();
          }
        });
      }
      await backend.stop();
    }
    // Whatever a failed start left running is stopped by cleanUpAll at the end.
  }

  let exitForSkip = false;
  if (only.has('rgw') && !failures.includes('build')) {
    await attempt('rgw', async () => {
      const skipped = await runRgw(settings, database, emit);
      if (skipped === null) return;
      console.log(`\n## rgw: not run: ${skipped}`);
      extraChecks.push(...rgwNotRun(settings, skipped));
      exitForSkip = explicit;
    });
  }
  await database?.close();

  const checks = [...sections.flatMap((section) => section.checks), ...extraChecks];
  printTargets(checks);
  const missed = checks.filter((check) => passes(check) === false);
  const notRun = checks.filter((check) => passes(check) === null);

  const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  const file = `${resultsDir}latest.json`;
  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    quick,
    only: [...only],
    environment: {
      ...machine,
      gatewayDatabase: database?.description ?? 'embedded PGlite (development mode)',
    },
    settings,
    sections,
    checks: checks.map((check) => ({ ...check, pass: passes(check) })),
    failures,
    missed: missed.map((check) => check.name),
    passed: missed.length === 0 && failures.length === 0,
  };
  // Formatted as the repository's prettier would, so `npm run format:check` stays clean.
  const options = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(JSON.stringify(results), { ...options, parser: 'json' }));
  const met = checks.length - missed.length - notRun.length;
  console.log(
    `\n${met} of ${checks.length} targets met, ${missed.length} missed, ${notRun.length} not run` +
      `${failures.length > 0 ? `; could not run: ${failures.join(', ')}` : ''}; ` +
      `${((Date.now() - startedAt.getTime()) / 60_000).toFixed(1)} min; results in ${file}`,
  );
  if (failures.length > 0 || exitForSkip) return 2;
  return missed.length === 0 ? 0 : 1;
}

runCommand(main);
