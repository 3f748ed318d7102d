/**
 * Load with wrk (Debian's package): one request, signed once, replayed on every connection for
 * a fixed time (a signature stays valid for the 15-minute skew window and the gateway verifies
 * each replay in full, so the load generator spends its CPU on HTTP, not on signing), or several
 * signed once each and sent in turn (rotate.lua: uploads spread over many keys). wrk is C on
 * epoll and far cheaper per request than a Node client, which matters when it shares two cores
 * with the processes measured. bench/wrk/replay.lua formats the request and reports percentiles.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './cleanup.js';

/** One request exactly as sent, replayable. */
export interface ReplayRequest {
  readonly method: 'GET' | 'PUT';
  /** Request target: path and query, already encoded. */
  readonly target: string;
  /** Every header but Content-Length (wrk adds it from the body), Host among them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  /** Body bytes a correct answer carries (4 KiB for a small GET, 0 for a PUT). */
  readonly answerBytes: number;
}

export interface WrkResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

const REPLAY_SCRIPT = fileURLToPath(new URL('./wrk/replay.lua', import.meta.url));
const ROTATE_SCRIPT = fileURLToPath(new URL('./wrk/rotate.lua', import.meta.url));
/** Threads of wrk: one C event loop outruns any Node server here, and leaves more CPU to them. */
const THREADS = 1;
/** A wrk that has not finished this long after its duration is killed (and the run fails). */
const GRACE_MS = 30_000;

let requestDir: string | null = null;
let requestFiles = 0;

/** A new file in the benchmark's request directory (removed at exit). */
function requestFile(content: Buffer): string {
  if (requestDir === null) {
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-bench-wrk-'));
    requestDir = dir;
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  }
  const file = path.join(requestDir, `request-${(requestFiles += 1)}.txt`);
  writeFileSync(file, content);
  return file;
}

/** The method, target and headers, one per line (Content-Length left to wrk). */
function headLines(request: ReplayRequest): string[] {
  const lines = [request.method, request.target];
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.toLowerCase() === 'content-length') continue;
    if (/[\r\n]/.test(name + value)) throw new Error(`header ${name} holds a line break`);
    lines.push(`${name}: ${value}`);
  }
  return lines;
}

/** wrk's script and its arguments for one request replayed, or several sent in turn. */
function scriptFor(load: ReplayRequest | readonly ReplayRequest[]): string[] {
  const requests: readonly ReplayRequest[] = 'method' in load ? [load] : load;
  const [first] = requests;
  if (first === undefined) throw new Error('no request to send');
  if (requests.length === 1) {
    const head = Buffer.from(`${headLines(first).join('\n')}\n\n`, 'latin1');
    return [REPLAY_SCRIPT, '--', requestFile(Buffer.concat([head, first.body ?? Buffer.alloc(0)]))];
  }
  if (requests.some((request) => request.body !== first.body))
    throw new Error('requests sent in turn must share one body');
  const heads = requests.map((request) => `${headLines(request).join('\n')}\n--\n`).join('');
  return [
    ROTATE_SCRIPT,
    '--',
    requestFile(Buffer.from(heads, 'latin1')),
    requestFile(first.body ?? Buffer.alloc(0)),
  ];
}

/** Sends the request once with node:http (through `agent`, or on a connection of its own). */
function sendOnce(
  baseUrl: string,
  request: ReplayRequest,
  agent: http.Agent | false,
): Promise<{ status: number; body: Buffer }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.target,
        headers: { ...request.headers, 'content-length': String(request.body?.length ?? 0) },
        agent,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }),
        );
        response.once('error', reject);
      },
    );
    outgoing.setTimeout(30_000, () => outgoing.destroy(new Error('no answer within 30 s')));
    outgoing.once('error', reject);
    outgoing.end(request.body);
  });
}

function expectAnswer(
  baseUrl: string,
  request: ReplayRequest,
  answer: { status: number; body: Buffer },
): void {
  const { status, body } = answer;
  if (status !== 200 || body.length !== request.answerBytes) {
    throw new Error(
      `${request.method} ${baseUrl}${request.target.split('?')[0]}: HTTP ${status}, ${body.length} bytes ` +
        `(expected 200 with ${request.answerBytes}): ${body.subarray(0, 400).toString('utf8')}`,
    );
  }
}

/** Sends the request once with node:http; throws with the answer unless it is a 200 of the right size. */
export async function probe(baseUrl: string, request: ReplayRequest): Promise<void> {
  expectAnswer(baseUrl, request, await sendOnce(baseUrl, request, false));
}

/**
 * Sends the request `requests` times at low concurrency, `connections` keep-alive connections at a
 * time, each carrying `perConnection` requests before a fresh set replaces them: many connections
 * in all, so that the kernel's SO_REUSEPORT hash hands some to every storage worker. Every answer
 * must be a 200 of the right size. Returns the number of connections used.
 */
export async function replaySequentially(
  baseUrl: string,
  request: ReplayRequest,
  options: { requests: number; connections: number; perConnection: number },
): Promise<number> {
  let sent = 0;
  let used = 0;
  while (sent < options.requests) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
    try {
      const lanes = Array.from({ length: options.connections }, async () => {
        for (let i = 0; i < options.perConnection && sent < options.requests; i += 1) {
          sent += 1;
          expectAnswer(baseUrl, request, await sendOnce(baseUrl, request, agent));
        }
      });
      await Promise.all(lanes);
      used += options.connections;
    } finally {
      agent.destroy();
    }
  }
  return used;
}

interface ReplayJson {
  requests: number;
  durationUs: number;
  bytes: number;
  errors: Record<'connect' | 'read' | 'write' | 'status' | 'timeout', number>;
  latencyUs: { p50: number; p90: number; p99: number; max: number; mean: number };
}

/** Runs wrk against `baseUrl`; throws when any request failed or answered the wrong size. */
export async function runWrk(options: {
  readonly baseUrl: string;
  /** One request replayed, or several sent in turn (sharing one body). */
  readonly request: ReplayRequest | readonly ReplayRequest[];
  readonly connections: number;
  readonly seconds: number;
}): Promise<WrkResult> {
  const [script, ...scriptArgs] = scriptFor(options.request);
  const first = 'method' in options.request ? options.request : options.request[0];
  const args = [
    `-t${Math.min(THREADS, options.connections)}`,
    `-c${options.connections}`,
    `-d${Math.max(1, Math.round(options.seconds))}s`,
    '--timeout',
    '10s',
    '-s',
    script as string,
    options.baseUrl,
    ...scriptArgs,
  ];
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.seconds * 1000 + GRACE_MS);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === 'ENOENT'
          ? new Error('wrk is not installed: apt-get install wrk (or scripts/e2e/install-clients.sh bench)')
          : error,
      );
    });
    // 'close', not 'exit': wrk's output may still be in its pipe when the process has exited
    // (seen with two wrk at once, whose result line was then missed).
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`wrk ${args.join(' ')} exited (${code ?? signal}): ${stderr}${stdout}`));
    });
  });
  const line = output.split('\n').find((candidate) => candidate.startsWith('BENCH_RESULT '));
  if (line === undefined) throw new Error(`wrk printed no result:\n${output}`);
  const result = JSON.parse(line.slice('BENCH_RESULT '.length)) as ReplayJson;
  const failed = Object.values(result.errors).reduce((sum, count) => sum + count, 0);
  const label = `${first?.method} ${options.baseUrl} c=${options.connections}`;
  if (failed > 0 || result.requests === 0) {
    throw new Error(
      `${label}: ${failed} errors in ${result.requests} requests ${JSON.stringify(result.errors)}`,
    );
  }
  // A status of 2xx with a short body would slip past wrk's error count; the byte count catches it.
  const bytesPerAnswer = result.bytes / result.requests;
  if (bytesPerAnswer < (first?.answerBytes ?? 0)) {
    throw new Error(
      `${label}: ${bytesPerAnswer.toFixed(0)} bytes per answer, expected ≥ ${first?.answerBytes}`,
    );
  }
  const seconds = result.durationUs / 1e6;
  return {
    requests: result.requests,
    seconds,
    requestsPerSecond: result.requests / seconds,
    p50Ms: result.latencyUs.p50 / 1000,
    p90Ms: result.latencyUs.p90 / 1000,
    p99Ms: result.latencyUs.p99 / 1000,
    maxMs: result.latencyUs.max / 1000,
  };
}
