import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccessLog, type AccessEntry } from '../../../src/observability/access-log.js';
import { createLogger } from '../../../src/observability/logger.js';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'access-log-'));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

const ENTRY: AccessEntry = {
  requestId: '18F2A3B4C5D6E7F8',
  method: 'PUT',
  target: '/photos/2026/a%20b.jpg?X-Amz-Signature=[redacted]',
  operation: 'PutObject',
  status: 403,
  code: 'AccessDenied',
  bucket: 'photos',
  accessKeyId: 'GWAKEXAMPLE',
  organisationId: null,
  bytesIn: 4096,
  bytesOut: 243,
  durationMs: 1.3,
  userAgent: 'aws-cli/2 "quoted" \\ back\tslash \u0001 é 😀',
  remoteAddress: null,
};

/** The lines `record` wrote for each entry, through the production log at `level`, to a file of its own. */
function linesOf(level: string, entries: readonly AccessEntry[]): string[] {
  const file = path.join(directory, level);
  const fd = openSync(file, 'w');
  const log = createAccessLog(level, { fd, fields: { worker: 2 } });
  for (const entry of entries) log.record(entry);
  log.flush();
  closeSync(fd);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

/** The line pino writes for the same entry, as every other line of the gateway is written. */
function pinoLine(entry: AccessEntry): string {
  let line = '';
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      line += chunk.toString('utf8');
      done();
    },
  });
  createLogger('info', capture, { worker: 2 }).info(entry, 's3 request');
  return line.trim();
}

describe('the access log line', () => {
  it('is the line pino writes for the same entry: the same fields, values and order', () => {
    const [line] = linesOf('info', [ENTRY]);
    const written = JSON.parse(line ?? '') as Record<string, unknown>;
    const expected = JSON.parse(pinoLine(ENTRY)) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(Object.keys(expected));
    expect({ ...written, time: undefined }).toEqual({ ...expected, time: undefined });
    expect(written).toMatchObject({ level: 30, service: 's3-gateway', worker: 2, msg: 's3 request' });
    expect(new Date(written.time as string).toISOString()).toBe(written.time);
  });

  it('keeps every character of a field, quotes, control characters and non-ASCII included', () => {
    const [line] = linesOf('info', [ENTRY]);
    expect((JSON.parse(line ?? '') as AccessEntry).userAgent).toBe(ENTRY.userAgent);
  });

  it('writes one line per request at info and debug, none above info', () => {
    expect(linesOf('debug', [ENTRY, { ...ENTRY, status: 200, code: '' }])).toHaveLength(2);
    expect(linesOf('warn', [ENTRY])).toEqual([]);
    expect(linesOf('silent', [ENTRY])).toEqual([]);
  });
});
