/**
 * `npm run bench [-- --quick] [-- --only=sigv4,proxy,stream]`: runs the benchmarks, prints their
 * tables and the targets, writes bench/results/latest.json, and exits 1 when a target is missed
 * (2 when a benchmark could not run at all).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { startBackend, startGatewayProcess, type BackendProcess, type GatewayProcess } from './children.js';
import { passes, type Section } from './measure.js';
import { runProxy } from './proxy.js';
import { FULL, QUICK } from './settings.js';
import { runSigV4 } from './sigv4.js';
import { runStreaming } from './streaming.js';

const BENCHMARKS = ['sigv4', 'proxy', 'stream'] as const;
type Benchmark = (typeof BENCHMARKS)[number];

function parseArguments(argv: readonly string[]): { quick: boolean; only: Set<Benchmark> } {
  let quick = false;
  let only = new Set<Benchmark>(BENCHMARKS);
  for (const argument of argv) {
    if (argument === '--quick') quick = true;
    else if (argument.startsWith('--only=')) {
      const names = argument.slice('--only='.length).split(',');
      const unknown = names.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
      if (unknown.length > 0)
        throw new Error(`unknown benchmark ${unknown.join(', ')}; have ${BENCHMARKS.join(', ')}`);
      only = new Set(names as Benchmark[]);
    } else throw new Error(`unknown argument ${argument}; use --quick and/or --only=${BENCHMARKS.join(',')}`);
  }
  return { quick, only };
}

function printTable(columns: readonly string[], rows: readonly (readonly (string | number)[])[]): void {
  const cells = [columns, ...rows].map((row) => row.map((cell) => String(cell)));
  const widths = columns.map((_, index) => Math.max(...cells.map((row) => (row[index] ?? '').length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, index) =>
        typeof rows[0]?.[index] === 'number'
          ? cell.padStart(widths[index] ?? 0)
          : cell.padEnd(widths[index] ?? 0),
      )
      .join('  ')
      .trimEnd();
  console.log(line(cells[0] ?? []));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of cells.slice(1)) console.log(line(row));
}

function printSection(section: Section): void {
  console.log(`\n## ${section.title}\n`);
  printTable(section.columns, section.rows);
  for (const note of section.notes ?? []) console.log(`  ${note}`);
}

async function main(): Promise<number> {
  const { quick, only } = parseArguments(process.argv.slice(2));
  const settings = quick ? QUICK : FULL;
  const startedAt = new Date();
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `s3-gateway benchmarks${quick ? ' (--quick: short smoke run, numbers are rough)' : ''}: ` +
      `Node ${process.version}, ${os.availableParallelism()} × ${cpu}`,
  );
  if (!process.version.startsWith('v24.'))
    console.log('  warning: the project pins Node 24; run through npm.');
  const loadAtStart = os.loadavg()[0] ?? 0;
  if (loadAtStart > os.availableParallelism() / 2) {
    console.log(
      `  warning: load average ${loadAtStart.toFixed(1)} before starting: other work is running, so ` +
        'wall-clock numbers (req/s, MiB/s, latency) will be low and noisy; CPU-time ones less so.',
    );
  }

  const sections: Section[] = [];
  if (only.has('sigv4')) {
    const section = await runSigV4(settings);
    printSection(section);
    sections.push(section);
  }
  if (only.has('proxy') || only.has('stream')) {
    let backend: BackendProcess | null = null;
    let gateway: GatewayProcess | null = null;
    try {
      backend = await startBackend();
      gateway = await startGatewayProcess(backend.url);
      if (only.has('proxy')) {
        const section = await runProxy(settings, backend, gateway);
        printSection(section);
        sections.push(section);
      }
      if (only.has('stream')) {
        const section = await runStreaming(settings, backend, gateway);
        printSection(section);
        sections.push(section);
      }
    } finally {
      await gateway?.stop();
      await backend?.stop();
    }
  }

  const checks = sections.flatMap((section) =>
    section.checks.map((check) => ({ ...check, pass: passes(check) })),
  );
  console.log('\n## Targets\n');
  printTable(
    ['', 'measurement', 'value', 'target', 'constant'],
    checks.map((check) => [
      check.pass ? 'ok' : 'MISSED',
      check.name,
      `${check.value} ${check.unit}`,
      `${check.target.kind === 'min' ? '≥' : '≤'} ${check.target.limit} ${check.unit}`,
      check.target.constant,
    ]),
  );
  const missed = checks.filter((check) => !check.pass);

  const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(resultsDir, { recursive: true });
  const file = `${resultsDir}latest.json`;
  const results = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    quick,
    environment: {
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      cpu,
      cores: os.availableParallelism(),
      memoryMiB: Math.round(os.totalmem() / 2 ** 20),
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: os.loadavg()[0] ?? 0,
    },
    settings,
    sections: sections.map((section) => ({
      ...section,
      checks: section.checks.map((c) => ({ ...c, pass: passes(c) })),
    })),
    missed: missed.map((check) => check.name),
    passed: missed.length === 0,
  };
  // Formatted as the repository's prettier would, so `npm run format:check` stays clean.
  const options = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(JSON.stringify(results), { ...options, parser: 'json' }));
  console.log(`\n${checks.length - missed.length} of ${checks.length} targets met; results in ${file}`);
  return missed.length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 2;
  },
);
