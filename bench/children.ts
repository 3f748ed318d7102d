/** The benchmark's child processes: the minimal backend and the gateway, talked to over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Credential } from './sign.js';

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

interface Child {
  readonly process: ChildProcess;
  /** Its stderr so far, for error messages. */
  stderr(): string;
  stop(): Promise<void>;
}

function spawnTs(script: string, env: Record<string, string>, extraExecArgv: string[] = []): Child {
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), [], {
    execArgv: ['--import', 'tsx', ...extraExecArgv],
    env: { ...process.env, ...env },
    // The gateway's access log goes to its stdout: discarded, but still written, as in production.
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-8000);
  });
  return {
    process: child,
    stderr: () => stderr,
    stop: () =>
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
        if (child.connected) child.send({ type: 'stop' }, () => child.disconnect());
        else child.kill('SIGTERM');
      }),
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

export interface BackendProcess {
  readonly url: string;
  stats(): Promise<{ requests: number; bytesIn: number; bytesOut: number }>;
  stop(): Promise<void>;
}

/** How fast the backend reads `slow-` uploads (and the benchmark reads slow downloads). */
export const SLOW_PEER_MIB_PER_SECOND = 64;

export async function startBackend(): Promise<BackendProcess> {
  const child = spawnTs('./backend-process.ts', {
    BENCH_SLOW_MIB_PER_SECOND: String(SLOW_PEER_MIB_PER_SECOND),
  });
  const ready = await nextMessage<{ url: string }>(child, 'ready').catch(async (error: unknown) => {
    await child.stop();
    throw error;
  });
  return {
    url: ready.url,
    stats: async () => {
      const answer = nextMessage<{ requests: number; bytesIn: number; bytesOut: number }>(child, 'stats');
      child.process.send({ type: 'stats' });
      return answer;
    },
    stop: () => child.stop(),
  };
}

export type MemoryUsage = NodeJS.MemoryUsage;

export interface GatewayProcess {
  readonly s3Url: string;
  readonly credential: Credential;
  readonly bucket: string;
  readonly pid: number;
  memory(): Promise<MemoryUsage>;
  /** CPU time the gateway process has used so far (user + system, all its threads). */
  cpuSeconds(): Promise<number>;
  /** Collects a memoryUsage() every `everyMs` until the returned function is called. */
  sample(everyMs: number): () => MemoryUsage[];
  stop(): Promise<void>;
}

export async function startGatewayProcess(backendUrl: string): Promise<GatewayProcess> {
  // e.g. BENCH_GATEWAY_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the gateway.
  const extra = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const child = spawnTs('./gateway-process.ts', { BENCH_BACKEND_URL: backendUrl }, extra);
  const ready = await nextMessage<{ s3Url: string; credential: Credential; bucket: string }>(
    child,
    'ready',
  ).catch(async (error: unknown) => {
    await child.stop();
    throw error;
  });
  return {
    s3Url: ready.s3Url,
    credential: ready.credential,
    bucket: ready.bucket,
    pid: child.process.pid ?? 0,
    memory: async () => {
      const answer = nextMessage<{ usage: MemoryUsage }>(child, 'memory');
      child.process.send({ type: 'memory' });
      return (await answer).usage;
    },
    cpuSeconds: async () => {
      const answer = nextMessage<{ usage: NodeJS.CpuUsage }>(child, 'cpu');
      child.process.send({ type: 'cpu' });
      const { usage } = await answer;
      return (usage.user + usage.system) / 1e6;
    },
    sample: (everyMs) => {
      const samples: MemoryUsage[] = [];
      const onMessage = (message: { type?: string; usage?: MemoryUsage }) => {
        if (message.type === 'memory' && message.usage !== undefined) samples.push(message.usage);
      };
      child.process.on('message', onMessage);
      child.process.send({ type: 'sample', everyMs });
      return () => {
        child.process.send({ type: 'unsample' });
        child.process.off('message', onMessage);
        return samples;
      };
    },
    stop: () => child.stop(),
  };
}
