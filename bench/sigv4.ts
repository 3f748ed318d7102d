/**
 * SigV4 verification and body integrity, in process, with no network: what the gateway spends
 * per request on authentication, and per byte on aws-chunked decoding and checksums.
 */
import { pipeline } from 'node:stream/promises';
import {
  createBodyPipeline,
  SigningKeyCache,
  SigV4Verifier,
  type ChecksumAlgorithm,
  type VerifyRequest,
} from '../src/s3/sigv4/index.js';
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

function verifierWith(cache: SigningKeyCache): SigV4Verifier {
  return new SigV4Verifier(
    async (accessKeyId) => (accessKeyId === CREDENTIAL.accessKeyId ? { secrets: [CREDENTIAL.secret] } : null),
    { allowedRegions: ['us-east-1', 'auto'], signingKeys: cache },
  );
}

/** Throws unless the request verifies, so a benchmark never times a refusal. */
async function assertVerifies(verifier: SigV4Verifier, request: VerifyRequest): Promise<void> {
  const result = await verifier.verify(request);
  if (!result.ok) throw new Error(`benchmark request does not verify: ${result.error}`);
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
  return { method: 'GET', rawTarget: path, headers: distinct, now: new Date() };
}

async function presignedGet(): Promise<VerifyRequest> {
  const target = await presignTarget(CREDENTIAL, {
    method: 'GET',
    endpoint: ENDPOINT,
    path: '/bench-bucket/photos/2024/holiday%20picture-0001.jpg',
  });
  return {
    method: 'GET',
    rawTarget: target,
    headers: { host: ['127.0.0.1:9000'], 'user-agent': ['Mozilla/5.0'] },
    now: new Date(),
  };
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

  const warmCache = new SigningKeyCache();
  const warm = verifierWith(warmCache);
  await assertVerifies(warm, header);
  const warmRun = await timeOps(() => warm.verify(header), timing);

  const coldCache = new SigningKeyCache();
  const cold = verifierWith(coldCache);
  await assertVerifies(cold, header);
  const coldRun = await timeOps(() => {
    // Every verification derives its signing key again (a new day, key or region).
    coldCache.clear();
    return cold.verify(header);
  }, timing);

  await assertVerifies(warm, presigned);
  const presignedRun = await timeOps(() => warm.verify(presigned), timing);

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
  const plan = createBodyPipeline(source.headers());
  if (!plan.ok) throw new Error(`body plan refused: ${plan.error}`);
  const sink = new CountingSink();
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  await pipeline([source, ...plan.transforms, sink]);
  const cpuSeconds = cpuSecondsSince(cpuStart);
  const seconds = (performance.now() - started) / 1000;
  if (sink.bytes !== total || plan.verifier?.verifiedChecksum === undefined) {
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
