/**
 * A bounded fuzz run against the storage endpoint: ten thousand generated hostile requests (bad
 * methods, paths, encodings, query parameters, signatures, headers, bodies and broken HTTP), half
 * of them validly signed so they reach the deep steps. Whatever arrives, the endpoint answers an S3
 * error document (or the documented challenge page), never a 5xx other than an intended 503 or a
 * 501 NotImplemented, leaves no request without an answer (a silent close or a reset before the
 * status line fails the run), holds none past its timeout, and stays alive. The seed is fixed, plus one random seed per run,
 * printed with every failure so the run can be replayed (GATEWAY_FUZZ_SEED=<seed>).
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pick, prng, type Random } from '../../support/seeded-random.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { pathStyleClient } from '../../support/s3/clients.js';
import { createBucket } from '../../support/s3/fixtures.js';
import { signedHeaders } from '../../support/s3/raw-requests.js';
import { PutObjectCommand } from '@aws-sdk/client-s3';

const REQUESTS_PER_SEED = 5_000;
const CONCURRENCY = 16;
/** No request may be held longer: the body idle timeout (set below) plus a wide margin. */
const REQUEST_TIMEOUT_MS = 15_000;
const FIXED_SEED = 0x5eed_2026;
/**
 * Each seed's share of the acceptance's 60 s for the whole run (vitest fails a seed that takes
 * longer): a bound on a hang, not a speed target, which lives in the benchmarks.
 */
const SEED_TIMEOUT_MS = 29_000;

const METHODS = [
  'GET',
  'GET',
  'PUT',
  'PUT',
  'POST',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'TRACE',
  'PROPFIND',
];
const BUCKETS = [
  'fuzz',
  'fuzz',
  'fuzz',
  'nope',
  'FUZZ',
  'a',
  'x'.repeat(70),
  'fu..zz',
  '192.168.0.1',
  'fuzz-',
];
const KEY_PARTS = [
  'k',
  'photo.jpg',
  '%00',
  '%C0%AE',
  '%zz',
  '%',
  '%2F',
  '..',
  '.',
  '%2e%2e',
  '//',
  '%C3%BC',
  '%F0%9F%98%80',
  '%ED%A0%80',
  'a%20b',
  '~',
  '*',
  // Long, but within the 255-byte file name the embedded store (local mode) can hold.
  'x'.repeat(200),
  '%0d%0a',
  '?',
  '#',
];
const SUBRESOURCES = [
  '',
  'acl',
  'uploads',
  'uploadId=nope',
  'partNumber=-1&uploadId=x',
  'partNumber=99999&uploadId=x',
  'list-type=2&max-keys=abc',
  'list-type=2&continuation-token=%00',
  'versions',
  'versionId=%FF',
  'delete',
  'tagging',
  'cors',
  'policy',
  'lifecycle',
  'location',
  'attributes',
  'torrent',
  'select&select-type=2',
  'response-content-type=text%2Fhtml%0d%0aX-Evil:1',
  'response-content-disposition=%00',
  'response-cache-control=ok',
  'X-Amz-Algorithm=AWS4-HMAC-SHA256',
  'X-Amz-Credential=%2F%2F%2F&X-Amz-Signature=zz&X-Amz-Date=x&X-Amz-Expires=-1&X-Amz-SignedHeaders=host',
  'AWSAccessKeyId=AKIA&Signature=x&Expires=1',
  'x-id=GetObject',
  'a=1&a=2&a=3',
  '%=%',
];
const HEADER_SETS: ReadonlyArray<Record<string, string>> = [
  {},
  { range: 'bytes=5-1' },
  { range: 'bytes=abc' },
  { range: 'bytes=0-0,1-1,2-2' },
  { 'if-match': '"x"' },
  { 'if-none-match': '*' },
  { 'if-modified-since': 'yesterday' },
  { 'x-amz-copy-source': '/fuzz/k' },
  { 'x-amz-copy-source': '%00' },
  { 'x-amz-copy-source': 'nope/../../etc' },
  { 'x-amz-storage-class': 'GLACIER' },
  { 'x-amz-checksum-crc32': 'AAAAAA==' },
  { 'x-amz-checksum-sha256': 'not base64' },
  { 'content-md5': 'garbage' },
  { 'x-amz-sdk-checksum-algorithm': 'MD4' },
  { 'x-amz-meta-a': 'b'.repeat(3000) },
  { 'x-amz-tagging': 'a=%ZZ' },
  { 'x-amz-acl': 'public-read-write' },
  { 'content-type': 'multipart/form-data; boundary=x' },
  { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': 'many' },
  { 'x-amz-trailer': 'x-amz-checksum-crc32' },
  { expect: '100-continue' },
  { 'x-amz-mp-object-size': '-5' },
];
const PAYLOAD_HASHES = [
  'UNSIGNED-PAYLOAD',
  'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
  'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
  '0'.repeat(64),
  'nonsense',
];
const BAD_AUTHORIZATIONS = [
  '',
  'AWS4-HMAC-SHA256',
  'AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=',
  'AWS4-HMAC-SHA256 Credential=GWK1AAAAAAAAAAAAAAAA/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=' +
    '0'.repeat(64),
  'AWS4-HMAC-SHA256 Credential=%00/x/y/z/aws4_request, SignedHeaders=host, Signature=zz',
  'Bearer token',
  'AWS4-HMAC-SHA256 Credential=a/b/c/d/e/f/g, SignedHeaders=;;;, Signature=1',
];
const BODIES = [
  '',
  'hello',
  '<Delete><Object><Key>k</Key></Object></Delete>',
  '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"x"</ETag></Part></CompleteMultipartUpload>',
  '<AccessControlPolicy><Owner><ID>x</ID></Owner></AccessControlPolicy>',
  '<<<<>>>>',
  '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b SYSTEM "file:///etc/passwd">]><Delete>&b;</Delete>',
  '\u0000\u0001\u0002',
];
/** Broken HTTP, written on a socket: what an HTTP client library would never send. */
const RAW_REQUESTS = [
  'GET /fuzz/k HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
  'GET /fuzz/k HTTP/1.1\r\n\r\n',
  'GET /fuzz/k HTTP/1.1\r\nHost: h\r\nX-Bad: a\rb\r\n\r\n',
  'BREW /fuzz/k HTTP/1.1\r\nHost: h\r\n\r\n',
  'CONNECT fuzz:443 HTTP/1.1\r\nHost: fuzz:443\r\n\r\n',
  'GET /fuzz/k HTTP/9.9\r\nHost: h\r\n\r\n',
  `GET /fuzz/k HTTP/1.1\r\nHost: h\r\nX-Pad: ${'p'.repeat(40_000)}\r\n\r\n`,
  'PUT /fuzz/k HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n',
  'PUT /fuzz/k HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  'GET /fuzz/%00 HTTP/1.1\r\nHost: h\r\nUser-Agent: \u0001\r\n\r\n',
  'GET /fuzz/a b/ü HTTP/1.1\r\nHost: h\r\n\r\n',
  'GET /fuzz/k?response-content-type=a\u0000b HTTP/1.1\r\nHost: h\r\n\r\n',
];

interface Request {
  method: string;
  target: string;
  headers: Record<string, string>;
  body: string;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

function describeRequest(request: Request | string): string {
  return typeof request === 'string'
    ? JSON.stringify(request.slice(0, 200))
    : `${request.method} ${request.target.slice(0, 200)} ${JSON.stringify(request.headers).slice(0, 300)}`;
}

async function generate(random: Random, gateway: TestGateway): Promise<Request | string> {
  if (random() < 0.08)
    return pick(random, RAW_REQUESTS).replace('Host: h', `Host: ${new URL(gateway.s3Url).host}`);
  const method = pick(random, METHODS);
  const bucket = pick(random, BUCKETS);
  const keyParts = Array.from({ length: Math.floor(random() * 3) }, () => pick(random, KEY_PARTS));
  const path = keyParts.length === 0 ? `/${bucket}` : `/${bucket}/${keyParts.join('/')}`;
  const query = Array.from({ length: Math.floor(random() * 3) }, () => pick(random, SUBRESOURCES))
    .filter((part) => part !== '')
    .join('&');
  const target = query === '' ? path : `${path}?${query}`;
  const body = method === 'PUT' || method === 'POST' ? pick(random, BODIES) : '';
  const headers: Record<string, string> = { ...pick(random, HEADER_SETS), 'user-agent': 'fuzz/1' };
  if (random() < 0.1) delete headers['user-agent'];
  const mode = random();
  if (mode < 0.5) {
    // Validly signed, so the request reaches authorisation, the bans, the body and the store.
    try {
      const signed = await signedHeaders({
        credential: gateway.credential,
        method,
        baseUrl: gateway.s3Url,
        path,
        query: Object.fromEntries(new URLSearchParams(query)),
        payloadHash: pick(random, PAYLOAD_HASHES),
        headers,
      });
      return { method, target, headers: signed, body };
    } catch {
      return { method, target, headers, body };
    }
  }
  if (mode < 0.75) headers.authorization = pick(random, BAD_AUTHORIZATIONS);
  if (random() < 0.3) headers['x-amz-date'] = pick(random, ['20260101T000000Z', 'x', '19700101T000000Z']);
  return { method, target, headers, body };
}

function send(baseUrl: string, request: Request): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = http.request({
      host: url.hostname,
      port: url.port,
      method: request.method,
      path: request.target,
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      agent: false,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: String(response.headers['content-type'] ?? ''),
          body: request.method === 'HEAD' ? '' : Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    outgoing.end(request.body);
  });
}

/**
 * Writes broken HTTP on a socket and parses the answer that comes back before the close. The
 * server may reset the connection once it answered (its framing can no longer be trusted), so a
 * reset after the status line is tolerated; a close or reset before one is a request left without
 * an answer, and rejects.
 */
function sendRawText(baseUrl: string, text: string): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`held longer than ${REQUEST_TIMEOUT_MS} ms`));
    }, REQUEST_TIMEOUT_MS);
    const chunks: Buffer[] = [];
    let socketError: string | undefined;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      socketError = error.code ?? error.message;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(raw);
      if (status === null) {
        const how = socketError === undefined ? 'closed' : `ended by ${socketError}`;
        return reject(new Error(`no answer: the connection ${how} after ${raw.length} bytes`));
      }
      const headEnd = raw.indexOf('\r\n\r\n');
      const head = headEnd === -1 ? raw : raw.slice(0, headEnd);
      resolve({
        status: Number(status[1]),
        contentType: /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1] ?? '',
        body: headEnd === -1 ? '' : raw.slice(headEnd + 4),
      });
    });
    // Half-close after writing: the server answers what it got and closes.
    socket.end(text);
  });
}

/**
 * What is wrong with an answer. The only 5xx the endpoint means to send are 503 (ServiceUnavailable,
 * SlowDown) and 501 NotImplemented; a HEAD's error has no body to read the code from, so it is held
 * to the catalogue's content type instead.
 */
function problemsWith(answer: Answer, method: string): string[] {
  const problems: string[] = [];
  const { status, contentType, body } = answer;
  if (status >= 500 && status !== 503 && status !== 501) problems.push(`status ${status}`);
  if (status >= 400 && method !== 'HEAD') {
    const challenge = status === 403 && contentType.startsWith('text/html');
    const xml =
      contentType === 'application/xml' && /^<\?xml[^>]*\?>\s*<Error><Code>[A-Za-z0-9.]+<\/Code>/.test(body);
    if (!challenge && !xml) problems.push(`not an S3 error document: ${contentType} ${body.slice(0, 200)}`);
  }
  if (status >= 500 && method === 'HEAD' && contentType !== 'application/xml')
    problems.push(`a HEAD answered ${status} without the catalogue's content type: ${contentType}`);
  if (status === 503 && method !== 'HEAD' && !/<Code>(ServiceUnavailable|SlowDown)<\/Code>/.test(body))
    problems.push('a 503 other than ServiceUnavailable or SlowDown');
  if (status === 501 && method !== 'HEAD' && !/<Code>NotImplemented<\/Code>/.test(body))
    problems.push('a 501 other than NotImplemented');
  return problems;
}

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ GATEWAY_S3_BODY_IDLE_TIMEOUT_MS: '1000', GATEWAY_LOG_LEVEL: 'warn' });
  await createBucket(gateway, 'fuzz');
  await pathStyleClient(gateway).send(new PutObjectCommand({ Bucket: 'fuzz', Key: 'k', Body: 'fuzzed' }));
});
afterAll(async () => {
  await gateway?.stop();
});

const randomSeed = Number(process.env.GATEWAY_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe('storage endpoint fuzzing', () => {
  it.each([FIXED_SEED, randomSeed])(
    `answers %i-seeded hostile requests with S3 errors, no unintended 5xx, within the timeout`,
    async (seed) => {
      const random = prng(seed);
      const failures: string[] = [];
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < REQUESTS_PER_SEED) {
          next += 1;
          const request = await generate(random, gateway);
          try {
            const answer =
              typeof request === 'string'
                ? await sendRawText(gateway.s3Url, request)
                : await send(gateway.s3Url, request);
            const method = typeof request === 'string' ? 'GET' : request.method;
            for (const problem of problemsWith(answer, method))
              failures.push(`${problem} for ${describeRequest(request)}`);
          } catch (error) {
            // No answer at all (a close, a reset, a hang past the timeout) is a finding: every
            // request, well-formed or broken, is owed an S3 error document.
            const { code, message } = error as NodeJS.ErrnoException;
            const what = code === undefined ? message : `no answer: ${code}: ${message}`;
            failures.push(`${what} for ${describeRequest(request)}`);
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const live = await fetch(`${gateway.s3Url}/_gateway/live`).catch(() => null);
      expect(live?.status, `the gateway died (seed ${seed})`).toBe(200);
      expect(
        failures.slice(0, 20),
        `seed ${seed} (replay with GATEWAY_FUZZ_SEED=${seed}): ${failures.length} failures`,
      ).toEqual([]);
    },
    SEED_TIMEOUT_MS,
  );
});
