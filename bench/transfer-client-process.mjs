// The large transfers' client: one object moved over one connection per transfer, sent from one
// repeated block and counted and dropped on arrival, with as little work of its own per byte as
// Node allows. In the `rgw` section's pinned mode it shares the proxy's core, so every CPU-second
// it spends is taken from the proxy it measures: a node:http client with a stream pipeline spent
// about 1.1 s per GiB there, as much as the proxy itself (BENCHMARKS.md, change 29).
//
// So it speaks HTTP/1.1 on a bare socket: the request head is written once, a PUT's body is the
// same block written again and again (no copy in user space), and the answer is read with
// net.Socket's `onread` into one reused 1 MiB buffer (a read system call of up to 1 MiB, no
// Buffer or stream event per 64 KiB). It sends `Connection: close`, as node:http with
// `agent: false` does, so the answer ends when the server closes and no body framing is parsed;
// the answer's Content-Length, when it has one, must match what arrived.
//
// Plain JavaScript run by `node` directly. Started by bench/children.ts: it answers each
// { type: 'transfer', id, ... } over IPC with { type: 'transferred', id, ... }, and exits when
// the IPC channel closes.
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

const READ_BYTES = 1024 * 1024;
const BLOCK_BYTES = 1024 * 1024;
/** A transfer that makes no progress for this long is abandoned. */
const IDLE_TIMEOUT_MS = 30_000;
/** An answer's head larger than this is no answer of an S3 server. */
const MAX_HEAD_BYTES = 64 * 1024;

const readBuffer = Buffer.allocUnsafe(READ_BYTES);
const block = randomBytes(BLOCK_BYTES);
const HEAD_END = Buffer.from('\r\n\r\n');

/** The request head: `headers` as given (lower-case names), plus Host and Connection. */
function requestHead({ method, host, port, path, headers }) {
  const lines = [`${method} ${path} HTTP/1.1`];
  if (headers.host === undefined) lines.push(`host: ${host}:${port}`);
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push('connection: close', '', '');
  return lines.join('\r\n');
}

/** The status and the Content-Length (or null) of an answer's head. */
function parseHead(head) {
  const lines = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? Number.NaN);
  if (!Number.isInteger(status)) throw new Error(`not an HTTP answer: ${JSON.stringify(lines[0])}`);
  let contentLength = null;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'content-length')
      contentLength = Number(line.slice(colon + 1).trim());
  }
  return { status, contentLength };
}

function transfer(request) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    let headChunks = [];
    let headBytes = 0;
    let answer = null;
    let bodyBytes = 0;
    let failed = false;
    const fail = (error) => {
      if (failed) return;
      failed = true;
      socket.destroy();
      reject(error);
    };
    const onBytes = (bytes) => {
      if (answer !== null) {
        bodyBytes += bytes.length;
        return;
      }
      // The head is copied out (the read buffer is reused); the body is only counted.
      headChunks.push(Buffer.from(bytes));
      headBytes += bytes.length;
      const received = headChunks.length === 1 ? headChunks[0] : Buffer.concat(headChunks);
      const end = received.indexOf(HEAD_END);
      if (end === -1) {
        if (headBytes > MAX_HEAD_BYTES) fail(new Error('answer head too large'));
        return;
      }
      answer = parseHead(received.subarray(0, end).toString('latin1'));
      bodyBytes = received.length - end - HEAD_END.length;
      headChunks = [];
    };
    const socket = net.connect({
      host: request.host,
      port: request.port,
      onread: {
        buffer: readBuffer,
        callback: (bytesRead, buffer) => {
          onBytes(buffer.subarray(0, bytesRead));
          return true;
        },
      },
    });
    socket.setNoDelay(true);
    socket.setTimeout(IDLE_TIMEOUT_MS, () => fail(new Error(`${request.method} ${request.path}: stalled`)));
    socket.once('error', fail);
    socket.once('end', () => socket.end());
    socket.once('close', () => {
      if (failed) return;
      if (answer === null) return fail(new Error('connection closed before an answer'));
      if (answer.contentLength !== null && answer.contentLength !== bodyBytes)
        return fail(new Error(`answer of ${bodyBytes} bytes, Content-Length ${answer.contentLength}`));
      const cpu = process.cpuUsage(cpuBefore);
      resolve({
        status: answer.status,
        bytes: bodyBytes,
        seconds: (performance.now() - started) / 1000,
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
      });
    });
    socket.once('connect', () => {
      let left = request.method === 'PUT' ? request.size : 0;
      const pump = () => {
        while (left > 0) {
          const take = Math.min(left, block.length);
          left -= take;
          if (!socket.write(take === block.length ? block : block.subarray(0, take))) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      socket.write(requestHead(request));
      pump();
    });
  });
}

process.on('message', (message) => {
  if (message?.type !== 'transfer') return;
  transfer(message).then(
    (outcome) => process.send?.({ type: 'transferred', id: message.id, ...outcome }),
    (error) => process.send?.({ type: 'transferred', id: message.id, error: String(error?.stack ?? error) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready', url: '' });
