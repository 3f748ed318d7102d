import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createReadableLogger, wantsReadableLogs } from '../../../src/observability/logger.js';

function sink(): { stream: Writable; lines: () => string[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString('utf8');
      callback();
    },
  });
  return { stream, lines: () => text.split('\n').filter((line) => line !== '') };
}

describe('readable logs', () => {
  it('are for local mode in a terminal only', () => {
    expect(wantsReadableLogs('development', { isTTY: true })).toBe(true);
    expect(wantsReadableLogs('development', { isTTY: false })).toBe(false);
    expect(wantsReadableLogs('development', {})).toBe(false);
    expect(wantsReadableLogs('production', { isTTY: true })).toBe(false);
  });

  it('print each event on one line, its fields as key=value, secrets still redacted', () => {
    const out = sink();
    const logger = createReadableLogger('info', { destination: out.stream, fields: { worker: 2 } });
    logger.info({ file: '/tmp/x y', password: 'hunter22' }, 'generated a development secret');
    expect(out.lines()).toHaveLength(1);
    expect(out.lines()[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: generated a development secret worker=2 file="\/tmp\/x y" password=\[redacted\]$/,
    );
  });

  it('print a storage request as the request and its answer', () => {
    const out = sink();
    createReadableLogger('info', { destination: out.stream }).info(
      {
        requestId: 'F4FD3792C8F26C35',
        method: 'GET',
        target: '/photos/cat.jpg',
        operation: 'GetObject',
        status: 403,
        code: 'AccessDenied',
        bucket: 'photos',
        accessKeyId: 'GWK1ABCDEFGHIJKLMNOP',
        bytesIn: 0,
        bytesOut: 243,
        durationMs: 3.1,
      },
      's3 request',
    );
    expect(out.lines()).toEqual([
      expect.stringMatching(
        /\] INFO: GET \/photos\/cat\.jpg → 403 AccessDenied \(3\.1 ms, 243 B out, GWK1ABCDEFGHIJKLMNOP, request F4FD3792C8F26C35\)$/,
      ),
    ]);
  });
});
