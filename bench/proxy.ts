/**
 * Proxy overhead: small-object GET and PUT through the gateway against the same requests sent
 * straight to the minimal backend, at a few concurrencies, each for a fixed time.
 */
import type { BackendProcess, GatewayProcess } from './children.js';
import { awsChunkedBytes, randomBlock } from './body-source.js';
import { runLoad, type LoadResult } from './load.js';
import { round, type Check, type Section } from './measure.js';
import type { Settings } from './settings.js';
import { EMPTY_SHA256, signHeaders, UNSIGNED_PAYLOAD, type Credential } from './sign.js';
import { check } from './targets.js';

/** What the backend answers for any key not named `size-<n>` (backend-process.ts). */
export const SMALL_OBJECT_BYTES = 4096;
const USER_AGENT = 'aws-sdk-js/3.0 ua/2.1 os/linux lang/js md/nodejs#24 api/s3#3.0 m/E';

type Kind = 'GET' | 'PUT' | 'PUT aws-chunked CRC32';

interface Request {
  readonly method: 'GET' | 'PUT';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
}

/** Signs the request for `endpoint` (the backend ignores the signature, but gets the same bytes). */
async function request(
  kind: Kind,
  endpoint: string,
  bucket: string,
  credential: Credential,
): Promise<Request> {
  const path = `/${bucket}/bench/small-object.bin`;
  if (kind === 'GET') {
    const headers = await signHeaders(credential, {
      method: 'GET',
      endpoint,
      path,
      headers: { 'x-amz-content-sha256': EMPTY_SHA256 },
    });
    return { method: 'GET', path, headers: { ...headers, 'user-agent': USER_AGENT } };
  }
  const block = randomBlock(SMALL_OBJECT_BYTES);
  if (kind === 'PUT') {
    const headers = await signHeaders(credential, {
      method: 'PUT',
      endpoint,
      path,
      headers: {
        'x-amz-content-sha256': UNSIGNED_PAYLOAD,
        'content-type': 'application/octet-stream',
        'content-length': String(block.length),
      },
    });
    return { method: 'PUT', path, headers: { ...headers, 'user-agent': USER_AGENT }, body: block };
  }
  // What a current AWS SDK sends for PutObject: aws-chunked with a CRC32 trailer.
  const framed = await awsChunkedBytes(block, 'CRC32');
  const headers = await signHeaders(credential, {
    method: 'PUT',
    endpoint,
    path,
    headers: { ...framed.headers, 'content-type': 'application/octet-stream' },
  });
  return { method: 'PUT', path, headers: { ...headers, 'user-agent': USER_AGENT }, body: framed.body };
}

export interface ProxyRun {
  readonly kind: Kind;
  readonly concurrency: number;
  readonly direct: LoadResult;
  readonly gateway: LoadResult;
  /** CPU time the gateway process spent per request (warm-up included on both sides of the division). */
  readonly gatewayCpuMicrosPerRequest: number;
}

function ms(value: number): string {
  return round(value, 2).toFixed(2);
}

export async function runProxy(
  settings: Settings,
  backend: BackendProcess,
  gateway: GatewayProcess,
): Promise<Section> {
  const runs: ProxyRun[] = [];
  const kinds: Kind[] = ['GET', 'PUT', 'PUT aws-chunked CRC32'];
  for (const kind of kinds) {
    // Signed once per kind: replays stay well inside the 15-minute skew window.
    const direct = await request(kind, backend.url, gateway.bucket, gateway.credential);
    const viaGateway = await request(kind, gateway.s3Url, gateway.bucket, gateway.credential);
    for (const concurrency of settings.concurrencies) {
      const timing = { concurrency, durationMs: settings.loadMs, warmupMs: settings.loadWarmupMs };
      const directResult = await runLoad({ endpoint: backend.url, ...direct, ...timing });
      const cpuBefore = await gateway.cpuSeconds();
      const gatewayResult = await runLoad({ endpoint: gateway.s3Url, ...viaGateway, ...timing });
      const cpuUsed = (await gateway.cpuSeconds()) - cpuBefore;
      for (const [label, result] of [
        ['direct', directResult],
        ['gateway', gatewayResult],
      ] as const) {
        if (result.errors > 0) {
          throw new Error(
            `${kind} c=${concurrency} ${label}: ${result.errors} of ${result.requests} failed (${result.firstError})`,
          );
        }
      }
      runs.push({
        kind,
        concurrency,
        direct: directResult,
        gateway: gatewayResult,
        gatewayCpuMicrosPerRequest: (cpuUsed * 1e6) / (gatewayResult.warmupRequests + gatewayResult.requests),
      });
    }
  }

  const rows = runs.map((run) => [
    run.kind,
    run.concurrency,
    Math.round(run.direct.requestsPerSecond),
    Math.round(run.gateway.requestsPerSecond),
    `${ms(run.direct.p50Ms)} / ${ms(run.direct.p99Ms)}`,
    `${ms(run.gateway.p50Ms)} / ${ms(run.gateway.p99Ms)}`,
    ms(run.gateway.p50Ms - run.direct.p50Ms),
    Math.round(run.gatewayCpuMicrosPerRequest),
  ]);

  const checks: Check[] = [];
  for (const run of runs) {
    const label = `${run.kind} c=${run.concurrency} via gateway`;
    if (run.concurrency === 1) {
      checks.push(check('PROXY_C1_MAX_P50_MS', `${label}: p50`, round(run.gateway.p50Ms, 2), 'ms'));
      checks.push(check('PROXY_C1_MAX_P99_MS', `${label}: p99`, round(run.gateway.p99Ms, 2), 'ms'));
    }
    if (run.concurrency === 8) {
      checks.push(check('PROXY_C8_MIN_RPS', label, Math.round(run.gateway.requestsPerSecond), 'req/s'));
      checks.push(
        check(
          'PROXY_MAX_CPU_US_PER_REQUEST',
          `${label}: gateway CPU`,
          Math.round(run.gatewayCpuMicrosPerRequest),
          'µs/req',
        ),
      );
    }
  }

  return {
    title: `Proxy overhead: ${SMALL_OBJECT_BYTES / 1024} KiB objects, ${settings.loadMs / 1000} s per scenario`,
    columns: [
      'op',
      'conc.',
      'direct req/s',
      'gateway req/s',
      'direct p50/p99 ms',
      'gateway p50/p99 ms',
      '+p50 ms',
      'gateway CPU µs/req',
    ],
    rows,
    checks,
    notes: [
      'direct: the same requests sent straight to the minimal backend (child process).',
      'gateway: through the gateway child process (SigV4 verify, authorise, re-sign, proxy, access log).',
      'gateway CPU µs/req: the gateway process CPU time (user + system) over the requests it served.',
    ],
    data: runs,
  };
}
