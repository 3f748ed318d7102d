/**
 * The gateway as operators run it: a separate process started from the compiled build
 * (`node <build>/main.js`), configured by its environment, watched through its stdout. For what an
 * in-process gateway cannot show: worker processes, signals, exit codes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENTUALLY_TIMEOUT_MS, eventually } from './eventually.js';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

export interface LogLine {
  readonly msg?: string;
  readonly level?: number;
  readonly worker?: number;
  readonly [field: string]: unknown;
}

export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly s3Url: string;
  readonly controlUrl: string;
  readonly metricsUrl: string;
  /** Every structured log line so far. */
  logs(): LogLine[];
  /** Resolves with the first log line (past or future) that matches; rejects after `timeoutMs`. */
  waitForLog(matches: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** Resolves when the process has exited. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the welcome banner (stdout that is not a log line) once it holds `ending`. */
  banner(ending?: RegExp, timeoutMs?: number): Promise<string>;
}

/**
 * Compiles the gateway into `<repository>/<folder>` (see scripts/build.mjs) and returns the path
 * of its entry point.
 */
export async function buildGateway(folder: string): Promise<string> {
  const child = spawn(process.execPath, ['scripts/build.mjs', folder], {
    cwd: REPOSITORY,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`build failed (${code}): ${stderr}`);
  return path.join(REPOSITORY, folder, 'main.js');
}

/** Starts `node entry` with `env` over the test runner's environment; resolves once it serves. */
export async function startGatewayProcess(
  entry: string,
  env: Record<string, string>,
  startTimeoutMs = 60_000,
  /** Flags for the main process's `node`, before the entry (as an operator would pass them). */
  nodeArgs: readonly string[] = [],
): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    cwd: REPOSITORY,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: LogLine[] = [];
  let bannerText = '';
  const waiters = new Set<{ matches: (line: LogLine) => boolean; resolve: (line: LogLine) => void }>();
  let stderr = '';
  let pending = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const complete = pending.split('\n');
    pending = complete.pop() ?? '';
    for (const text of complete) {
      if (!text.startsWith('{')) {
        bannerText += `${text}\n`; // the welcome banner
        continue;
      }
      const line = JSON.parse(text) as LogLine;
      lines.push(line);
      for (const waiter of waiters) {
        if (!waiter.matches(line)) continue;
        waiters.delete(waiter);
        waiter.resolve(line);
      }
    }
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

  const waitForLog = (
    matches: (line: LogLine) => boolean,
    timeoutMs = EVENTUALLY_TIMEOUT_MS,
  ): Promise<LogLine> => {
    const seen = lines.find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        matches,
        resolve: (line: LogLine) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no such log line within ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  };

  const started = await Promise.race([
    waitForLog((line) => line.msg?.startsWith('gateway started') === true, startTimeoutMs),
    exit.then(({ code, signal }) => {
      throw new Error(`gateway exited during start-up (${code ?? signal}): ${stderr.slice(-4000)}`);
    }),
  ]).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    child,
    s3Url: started.s3 as string,
    controlUrl: started.control as string,
    metricsUrl: (started.metrics as string).replace(/\/metrics$/, ''),
    logs: () => [...lines],
    banner: async (
      ending = /delete it once read\.|shown only now; create more|reset-password`\.|metrics +: \S+\n\n$/,
      timeoutMs = EVENTUALLY_TIMEOUT_MS,
    ) => {
      await eventually(
        () => `a complete banner: ${bannerText}`,
        () => ending.test(bannerText),
        {
          timeoutMs,
        },
      );
      return bannerText;
    },
    waitForLog,
    exited: () => exit,
  };
}

/** The pids of `parent`'s child processes whose command line contains `marker`. */
export function childProcesses(parent: number, marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent pid is the second field after the command name, which may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== parent) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids.sort((a, b) => a - b);
}
