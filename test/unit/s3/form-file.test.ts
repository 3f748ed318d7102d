import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FileTailCheck } from '../../../src/s3/upstream/form-file.js';

const CLOSING = Buffer.from('\r\n--XyZ--\r\n');

function run(
  chunks: string[],
  fileLength: number,
): Promise<{ out: string; error?: string; seenBeforeEnd: number }> {
  return new Promise((resolve) => {
    const check = new FileTailCheck(fileLength, CLOSING);
    let out = '';
    let seenBeforeEnd = 0;
    let ended = false;
    check.on('data', (chunk: Buffer) => {
      out += chunk.toString('latin1');
      if (!ended) seenBeforeEnd = out.length;
    });
    check.once('error', (error: Error & { code?: string }) =>
      resolve({ out, error: error.code, seenBeforeEnd }),
    );
    check.once('end', () => resolve({ out, seenBeforeEnd }));
    const source = Readable.from(chunks.map((chunk) => Buffer.from(chunk, 'latin1')));
    source.once('end', () => (ended = true));
    source.pipe(check);
  });
}

describe('the file of a form upload', () => {
  it('passes exactly the file, and its last byte only once the closing delimiter arrived', async () => {
    const file = 'x'.repeat(50);
    const result = await run([file.slice(0, 20), file.slice(20) + '\r\n--Xy', 'Z--\r\n'], 50);
    expect(result).toMatchObject({ out: file });
    expect(result.error).toBeUndefined();
    expect(result.seenBeforeEnd).toBeLessThan(50);
  });

  it('fails a form whose end is not the closing delimiter where its length puts it', async () => {
    expect((await run(['abc\r\n--XyZ-X\r\n'], 3)).error).toBe('MalformedPOSTRequest');
    expect((await run(['abcd\r\n--XyZ--\r\n'], 3)).error).toBe('MalformedPOSTRequest');
    expect((await run(['ab'], 3)).error).toBe('MalformedPOSTRequest');
  });
});
