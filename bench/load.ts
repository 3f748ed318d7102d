/**
 * A closed-loop load generator: `concurrency` workers on keep-alive connections, each sending its
 * next request as soon as the previous answer has ended, for a fixed time. Requests are signed
 * once per scenario and replayed (a signature stays valid for the 15-minute skew window, and the
 * gateway verifies each one in full), so the generator spends its CPU on HTTP, not on signing.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile } from './measure.js';

export interface LoadScenario {
  /** Base URL, `http://127.0.0.1:port`. */
  readonly endpoint: string;
  readonly method: 'GET' | 'PUT';
  readonly path: string;
  /** Complete request headers (signed, with content-length for a body). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  readonly concurrency: number;
  readonly durationMs: number;
  readonly warmupMs: number;
}

export interface LoadResult {
  /** Requests answered during the warm-up (not in the latencies, but in any CPU time measured around the run). */
  readonly warmupRequests: number;
  readonly requests: number;
  /** Requests that failed or answered anything but 200. */
  readonly errors: number;
  readonly firstError: string | null;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** Latency samples kept per scenario at most; far above what a few seconds produce here. */
const MAX_SAMPLES = 2_000_000;

function once(agent: http.Agent, url: URL, scenario: LoadScenario): Promise<string | null> {
  return new Promise((resolve) => {
    const request = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: scenario.method,
        path: scenario.path,
        headers: scenario.headers,
      },
      (response) => {
        response.on('data', () => undefined);
        response.once('end', () =>
          resolve(response.statusCode === 200 ? null : `HTTP ${response.statusCode}`),
        );
        response.once('error', (error) => resolve(error.message));
      },
    );
    request.once('error', (error) => resolve(error.message));
    request.end(scenario.body);
  });
}

export async function runLoad(scenario: LoadScenario): Promise<LoadResult> {
  const url = new URL(scenario.endpoint);
  const agent = new http.Agent({ keepAlive: true, maxSockets: scenario.concurrency });
  try {
    const phase = async (durationMs: number, record: boolean) => {
      const latencies: number[] = [];
      let errors = 0;
      let firstError: string | null = null;
      const started = performance.now();
      const deadline = started + durationMs;
      const worker = async () => {
        while (performance.now() < deadline && latencies.length + errors < MAX_SAMPLES) {
          const sent = performance.now();
          const error = await once(agent, url, scenario);
          if (error === null) {
            if (record) latencies.push(performance.now() - sent);
            else latencies.push(0);
          } else {
            errors += 1;
            firstError ??= error;
          }
        }
      };
      await Promise.all(Array.from({ length: scenario.concurrency }, worker));
      return { latencies, errors, firstError, seconds: (performance.now() - started) / 1000 };
    };
    const warmup = await phase(scenario.warmupMs, false);
    const measured = await phase(scenario.durationMs, true);
    const sorted = Float64Array.from(measured.latencies).sort();
    const requests = sorted.length + measured.errors;
    return {
      warmupRequests: warmup.latencies.length + warmup.errors,
      requests,
      errors: measured.errors,
      firstError: measured.firstError,
      seconds: measured.seconds,
      requestsPerSecond: sorted.length / measured.seconds,
      p50Ms: percentile(sorted, 50),
      p90Ms: percentile(sorted, 90),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? Number.NaN,
    };
  } finally {
    agent.destroy();
  }
}
