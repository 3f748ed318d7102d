/**
 * The benchmark's helper child processes, talked to over IPC: the minimal backend, the floor (a
 * bare http-proxy-3 in front of it) and the undici pass-through (a bare proxy on undici's
 * Pool.dispatch). The gateway itself is started from its compiled entry point by gateway.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './cleanup.js';
import { boundCommand } from './pinning.js';

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

interface Child {
  readonly process: ChildProcess;
  /** Its stderr so far, for error messages. */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts `script` (relative to this folder) with the Node running the benchmark and an IPC channel,
 * as fork() would, with only the given `execArgv` (fork() would hand the child this process's own
 * tsx loader flags) and, with `cpus`, under `taskset -c <cpus>` (which execs node: same pid).
 */
function forkChild(
  script: string,
  args: string[],
  execArgv: string[],
  env: Record<string, string>,
  cpus?: string,
): Child {
  const command = boundCommand(
    [process.execPath, ...execArgv, fileURLToPath(new URL(script, import.meta.url)), ...args],
    cpus,
  );
  const child = spawn(command[0] as string, command.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-8000);
  });
  return {
    process: child,
    stderr: () => stderr,
    stop: onCleanup(
      () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            resolve();
            return;
          }
          const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          // Every child exits when its IPC channel closes.
          if (child.connected) child.disconnect();
          else child.kill('SIGTERM');
        }),
    ),
  };
}

/** Resolves with the first IPC message of `type`; rejects if the child exits or time runs out. */
function nextMessage<T>(child: Child, type: string, timeoutMs = START_TIMEOUT_MS): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no '${type}' from child within ${timeoutMs} ms\n${child.stderr()}`));
    }, timeoutMs);
    const onMessage = (message: { type?: string }) => {
      if (message.type !== type) return;
      cleanup();
      resolve(message as T);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`child exited (${code}) before '${type}'\n${child.stderr()}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.process.off('message', onMessage);
      child.process.off('exit', onExit);
    };
    child.process.on('message', onMessage);
    child.process.once('exit', onExit);
  });
}

async function whenReady(child: Child): Promise<{ url: string }> {
  return nextMessage<{ url: string }>(child, 'ready').catch(async (error: unknown) => {
    await child.stop();
    throw error;
  });
}

export interface BackendProcess {
  readonly url: string;
  readonly pid: number;
  stats(): Promise<{ requests: number; bytesIn: number; bytesOut: number }>;
  stop(): Promise<void>;
}

/** What a gateway in front of the minimal backend is told it is (the backend ignores credentials). */
export const MINIMAL_BACKEND_KEYS = {
  accessKeyId: 'BENCHBACKENDKEY',
  secretAccessKey: 'bench-backend-secret',
  region: 'us-east-1',
};

/** How fast the backend reads `slow-` uploads (and the benchmark reads slow downloads). */
export const SLOW_PEER_MIB_PER_SECOND = 64;

export async function startBackend(): Promise<BackendProcess> {
  const child = forkChild('./backend-process.ts', [], ['--import', 'tsx'], {
    BENCH_SLOW_MIB_PER_SECOND: String(SLOW_PEER_MIB_PER_SECOND),
  });
  const ready = await whenReady(child);
  return {
    url: ready.url,
    pid: child.process.pid ?? 0,
    stats: async () => {
      const answer = nextMessage<{ requests: number; bytesIn: number; bytesOut: number }>(child, 'stats');
      child.process.send({ type: 'stats' });
      return answer;
    },
    stop: () => child.stop(),
  };
}

/** A reference proxy in a child process: the floor, or the undici pass-through. */
export interface FloorProcess {
  readonly url: string;
  readonly pid: number;
  /** Whether it still runs, and the tail of its stderr: for an error message. */
  diagnose(): string;
  stop(): Promise<void>;
}

/** Starts a plain-JavaScript reference proxy (no loader) in front of `backendUrl`. */
async function startReference(
  script: string,
  name: string,
  backendUrl: string,
  cpus?: string,
): Promise<FloorProcess> {
  const child = forkChild(script, [backendUrl], [], {}, cpus);
  const ready = await whenReady(child);
  const pid = child.process.pid ?? 0;
  return {
    url: ready.url,
    pid,
    diagnose: () => {
      const { exitCode, signalCode } = child.process;
      const state =
        exitCode === null && signalCode === null ? 'running' : `exited (${exitCode ?? signalCode})`;
      return `${name} ${pid}: ${state}\nits stderr: ${child.stderr().slice(-2000)}`;
    },
    stop: () => child.stop(),
  };
}

/**
 * The floor (floor-process.mjs), plain JavaScript with no loader, in front of `backendUrl` (the
 * minimal backend or RGW); with `cpus`, started under `taskset -c <cpus>`.
 */
export function startFloor(backendUrl: string, cpus?: string): Promise<FloorProcess> {
  return startReference('./floor-process.mjs', 'floor', backendUrl, cpus);
}

/** The undici pass-through (undici-passthrough-process.mjs) in front of `backendUrl`. */
export function startPassThrough(backendUrl: string): Promise<FloorProcess> {
  return startReference('./undici-passthrough-process.mjs', 'undici pass-through', backendUrl);
}

/** One request of the large transfers' client: a PUT of `size` generated bytes, or a GET. */
export interface TransferRequest {
  readonly method: 'GET' | 'PUT';
  readonly host: string;
  readonly port: number;
  readonly path: string;
  /** Signed headers, lower-case names (Host is added when absent). */
  readonly headers: Readonly<Record<string, string>>;
  /** The PUT's body length. */
  readonly size: number;
}

export interface TransferOutcome {
  readonly status: number;
  /** Body bytes of the answer. */
  readonly bytes: number;
  readonly seconds: number;
  /** The client's own CPU over the transfer. */
  readonly cpuSeconds: number;
}

export interface TransferClient {
  readonly pid: number;
  transfer(request: TransferRequest): Promise<TransferOutcome>;
  stop(): Promise<void>;
}

/** A transfer ends within this (its own idle timeout is 30 s): 1 GiB at 10 MiB/s. */
const TRANSFER_TIMEOUT_MS = 120_000;

/**
 * The large transfers' client (transfer-client-process.mjs), plain JavaScript with no loader; it
 * inherits this process's cores. One transfer at a time.
 */
export async function startTransferClient(): Promise<TransferClient> {
  const child = forkChild('./transfer-client-process.mjs', [], [], {});
  await whenReady(child);
  let next = 0;
  return {
    pid: child.process.pid ?? 0,
    transfer: async (request) => {
      next += 1;
      const answer = nextMessage<Partial<TransferOutcome> & { id: number; error?: string }>(
        child,
        'transferred',
        TRANSFER_TIMEOUT_MS,
      );
      child.process.send({ type: 'transfer', id: next, ...request });
      const outcome = await answer;
      // Transfers go one at a time: an answer to another one is a late answer to a transfer given up.
      if (outcome.id !== next) throw new Error(`answer to transfer ${outcome.id} while waiting for ${next}`);
      if (outcome.error !== undefined) throw new Error(`${request.method} ${request.path}: ${outcome.error}`);
      return outcome as TransferOutcome;
    },
    stop: () => child.stop(),
  };
}
