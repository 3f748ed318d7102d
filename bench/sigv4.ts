/**
 * SigV4 verification and body integrity, in process, with no network: what the gateway spends
 * per request on authentication, and per byte on aws-chunked decoding and checksums.
 */
import { pipeline } from 'node:stream/promises';
import { splitRequestTarget } from '../src/protocol/paths.js';
import { parseQuery } from '../src/protocol/query.js';
import { openBody, planBody } from '../src/sigv4/body-plan.js';
import type { ChecksumAlgorithm } from '../src/sigv4/checksums.js';
import { SigV4Verifier, type VerifyRequest } from '../src/sigv4/verify.js';
import {
  AwsChunkedSource,
  checksumOfRepeated,
  CountingSink,
  randomBlock,
  SDK_CHUNK_BYTES,
} from './body-source.js';
import { cpuSecondsSince, MiB, round, timeOps, type Section, type Throughput } from './measure.js';
import type { Settings } from './settings.js';
import { EMPTY_SHA256, presignTarget, signHeaders, type Credential } from './sign.js';
import { check, type TargetName } from './targets.js';

const ENDPOINT = 'http://127.0.0.1:9000';
const CREDENTIAL: Credential = {
  accessKeyId: 'GWKBENCH0000000000000',
  secret: 'bench-secret-bench-secret-bench-secret-00',
};

interface BenchCredential {
  readonly secret: string;
}

/**
 * A verifier whose lookup returns `record()`: the same record every time (its derived signing
 * keys are reused, as for a cached credential), or a new one each time (derived again).
 */
function verifierWith(record: () => BenchCredential): SigV4Verifier<BenchCredential> {
  return new SigV4Verifier<BenchCredential>(
    (accessKeyId) => {
      if (accessKeyId !== CREDENTIAL.accessKeyId) return null;
      const credential = record();
      return { credential, secrets: [credential.secret] };
    },
    { allowedRegions: ['us-east-1', 'auto'] },
  );
}

/** Throws unless the request verifies, so a benchmark never times a refusal. */
async function assertVerifies(
  verifier: SigV4Verifier<BenchCredential>,
  request: VerifyRequest,
): Promise<void> {
  const result = await verifier.authenticate(request);
  if (!result.ok) throw new Error(`benchmark request does not verify: ${result.error}`);
}

function verifyRequest(method: string, rawTarget: string, headers: VerifyRequest['headers']): VerifyRequest {
  const { path, query } = splitRequestTarget(rawTarget);
  return { method, path, query: parseQuery(query), headers, bodyHeaders: null, now: new Date() };
}

/** Headers as `req.headersDistinct` gives them, with what an SDK GetObject sends besides the signature. */
async function headerSignedGet(): Promise<VerifyRequest> {
  const path = '/bench-bucket/photos/2024/holiday%20picture-0001.jpg';
  const headers = await signHeaders(CREDENTIAL, {
    method: 'GET',
    endpoint: ENDPOINT,
    path,
    headers: {
      'x-amz-content-sha256': EMPTY_SHA256,
      'amz-sdk-invocation-id': '9b0c1a36-2f5e-4d3c-9a43-5b2f0e1c7d11',
      'amz-sdk-request': 'attempt=1; max=3',
    },
  });
  headers['user-agent'] = 'aws-sdk-js/3.0 ua/2.1 os/linux lang/js md/nodejs#24';
  const distinct = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
  return verifyRequest('GET', path, distinct);
}

async function presignedGet(): Promise<VerifyRequest> {
  const target = await presignTarget(CREDENTIAL, {
    method: 'GET',
    endpoint: ENDPOINT,
    path: '/bench-bucket/photos/2024/holiday%20picture-0001.jpg',
  });
  return verifyRequest('GET', target, { host: ['127.0.0.1:9000'], 'user-agent': ['Mozilla/5.0'] });
}

interface Row {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly detail: string;
  readonly constant?: TargetName;
}

async function verifyThroughput(settings: Settings): Promise<Row[]> {
  const timing = { durationMs: settings.opsMs, warmupMs: settings.opsWarmupMs };
  const header = await headerSignedGet();
  const presigned = await presignedGet();

  const cached = { secret: CREDENTIAL.secret };
  const warm = verifierWith(() => cached);
  await assertVerifies(warm, header);
  const warmRun = await timeOps(() => warm.authenticate(header), timing);

  // Every verification derives its signing key again (a credential just loaded, a new day or region).
  const cold = verifierWith(() => ({ secret: CREDENTIAL.secret }));
  await assertVerifies(cold, header);
  const coldRun = await timeOps(() => cold.authenticate(header), timing);

  await assertVerifies(warm, presigned);
  const presignedRun = await timeOps(() => warm.authenticate(presigned), timing);

  const row = (name: string, run: Throughput, constant: TargetName): Row => ({
    name,
    value: Math.round(run.opsPerCpuSecond),
    unit: 'verify/CPU-s',
    detail: `${round(1e6 / run.opsPerCpuSecond, 1)} µs CPU each; ${Math.round(run.opsPerSecond)}/s wall-clock, ${run.ops} ops`,
    constant,
  });
  return [
    row('header-signed GET, warm signing-key cache', warmRun, 'SIGV4_HEADER_WARM_MIN_OPS'),
    row('header-signed GET, cold signing-key cache', coldRun, 'SIGV4_HEADER_COLD_MIN_OPS'),
    row('presigned GET, warm signing-key cache', presignedRun, 'SIGV4_PRESIGNED_MIN_OPS'),
  ];
}

/**
 * Decodes and verifies one aws-chunked body exactly as the gateway plans it: MiB of decoded data
 * per CPU-second and per wall-clock second.
 */
async function decodeOnce(
  algorithm: ChecksumAlgorithm,
  block: Buffer,
  total: number,
): Promise<{ perCpuSecond: number; perSecond: number }> {
  const expected = await checksumOfRepeated(algorithm, block, total);
  const source = new AwsChunkedSource({ total, block, algorithm, expected });
  const plan = planBody(source.headers(), 'STREAMING-UNSIGNED-PAYLOAD-TRAILER');
  if (!plan.ok) throw new Error(`body plan refused: ${plan.error}`);
  const verification = openBody(plan);
  if (verification.stream === null) throw new Error('an aws-chunked body plan opened no decoder');
  const decoder = verification.stream;
  const sink = new CountingSink();
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  await pipeline(source, decoder, sink);
  const cpuSeconds = cpuSecondsSince(cpuStart);
  const seconds = (performance.now() - started) / 1000;
  if (sink.bytes !== total || verification.verifiedChecksum === undefined) {
    throw new Error(`aws-chunked ${algorithm}: body not verified (${sink.bytes} of ${total} bytes)`);
  }
  return { perCpuSecond: total / MiB / cpuSeconds, perSecond: total / MiB / seconds };
}

/** Sizes each run to last about `settings.chunkedMs` from a small calibration run. */
async function decodeThroughput(settings: Settings): Promise<Row[]> {
  const block = randomBlock(SDK_CHUNK_BYTES);
  const unit = 16 * SDK_CHUNK_BYTES;
  const rows: Row[] = [];
  const algorithms: { algorithm: ChecksumAlgorithm; constant?: TargetName; note: string }[] = [
    { algorithm: 'CRC32', constant: 'CHUNKED_CRC32_MIN_MIBS', note: "the AWS SDKs' default" },
    { algorithm: 'CRC64NVME', note: 'informational' },
    { algorithm: 'CRC32C', note: 'informational' },
  ];
  for (const { algorithm, constant, note } of algorithms) {
    const calibration = await decodeOnce(algorithm, block, 4 * MiB);
    const wanted = (calibration.perCpuSecond * MiB * settings.chunkedMs) / 1000;
    const total = Math.max(unit, Math.min(1024 * MiB, Math.round(wanted / unit) * unit));
    const run = await decodeOnce(algorithm, block, total);
    rows.push({
      name: `aws-chunked decode + ${algorithm} trailer verify`,
      value: round(run.perCpuSecond, 0),
      unit: 'MiB/CPU-s',
      detail: `${Math.round(run.perSecond)} MiB/s wall-clock; ${total / MiB} MiB in 64 KiB chunks, ${note}`,
      ...(constant === undefined ? {} : { constant }),
    });
  }
  return rows;
}

export async function runSigV4(settings: Settings): Promise<Section> {
  const rows = [...(await verifyThroughput(settings)), ...(await decodeThroughput(settings))];
  return {
    title: 'SigV4 verification and body integrity (in process, no network)',
    columns: ['measurement', 'result', 'unit', 'detail'],
    rows: rows.map((row) => [row.name, row.value, row.unit, row.detail]),
    checks: rows.flatMap((row) =>
      row.constant === undefined ? [] : [check(row.constant, row.name, row.value, row.unit)],
    ),
    data: rows,
  };
}
