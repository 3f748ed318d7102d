import { describe, expect, it } from 'vitest';

import { AwsChunkedDecoder, type AwsChunkedDecoderOptions } from '../../../src/sigv4/aws-chunked.js';
import { digestOf } from '../../../src/sigv4/checksums.js';
import { PayloadCheck } from '../../../src/sigv4/payload-verifier.js';
import { awsChunkedBody } from '../../support/aws-chunked.js';
import { bytewise, randomSplits, runThrough, testData } from './helpers.js';

const DATA = testData(70_000);
const CRC_TRAILER = ['x-amz-checksum-crc32', 'AAAAAA=='] as const;

async function decode(inputs: Buffer[], options: AwsChunkedDecoderOptions = {}) {
  const decoder = new AwsChunkedDecoder(options);
  const outcome = await runThrough(decoder, inputs);
  return { ...outcome, decoder };
}

describe('AwsChunkedDecoder: well-formed bodies', () => {
  it('decodes several chunks and exposes the trailers', async () => {
    const body = awsChunkedBody(DATA, 8192, [CRC_TRAILER]);
    const { output, errorKey, decoder } = await decode([body], {
      decodedContentLength: DATA.length,
      expectedTrailers: ['x-amz-checksum-crc32'],
    });
    expect(errorKey).toBeUndefined();
    expect(output.equals(DATA)).toBe(true);
    expect(decoder.decodedLength).toBe(DATA.length);
    expect([...decoder.trailers]).toEqual([['x-amz-checksum-crc32', 'AAAAAA==']]);
  });

  it('decodes the exact body the AWS SDK sends', async () => {
    const body = Buffer.from('6\r\nhello \r\n5\r\nworld\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n');
    const { output, errorKey, decoder } = await decode([body], { decodedContentLength: 11 });
    expect(errorKey).toBeUndefined();
    expect(output.toString()).toBe('hello world');
    expect(decoder.trailers.get('x-amz-checksum-crc32')).toBe('DUoRhQ==');
  });

  it('survives being fed one byte at a time', async () => {
    const data = DATA.subarray(0, 3000);
    const body = awsChunkedBody(data, 1000, [CRC_TRAILER, ['x-amz-trailer-signature', 'ab'.repeat(32)]]);
    const { output, errorKey, decoder } = await decode(bytewise(body), { decodedContentLength: data.length });
    expect(errorKey).toBeUndefined();
    expect(output.equals(data)).toBe(true);
    expect([...decoder.trailers.keys()]).toEqual(['x-amz-checksum-crc32']);
  });

  it('survives random splits', async () => {
    const body = awsChunkedBody(DATA, 4099, [CRC_TRAILER]);
    for (const seed of [11, 12, 13, 14, 15]) {
      const { output, errorKey, decoder } = await decode(randomSplits(body, seed, 600), {
        decodedContentLength: DATA.length,
      });
      expect(errorKey).toBeUndefined();
      expect(output.equals(DATA)).toBe(true);
      expect(decoder.trailers.get('x-amz-checksum-crc32')).toBe('AAAAAA==');
    }
  });

  it('passes data through without copying whole bodies into memory', async () => {
    const body = awsChunkedBody(DATA, DATA.length, []);
    const { chunks } = await decode([body]);
    // One data chunk in, one slice out: nothing was accumulated.
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.buffer).toBe(body.buffer);
  });

  it('decodes an empty body', async () => {
    const { output, errorKey, decoder } = await decode(
      [Buffer.from('0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n')],
      {
        decodedContentLength: 0,
        expectedTrailers: ['x-amz-checksum-crc32'],
      },
    );
    expect(errorKey).toBeUndefined();
    expect(output.length).toBe(0);
    expect(decoder.trailers.get('x-amz-checksum-crc32')).toBe('AAAAAA==');
  });

  it('accepts a body without trailers', async () => {
    const { output, errorKey } = await decode([awsChunkedBody(Buffer.from('abc'), 2)], {
      decodedContentLength: 3,
    });
    expect(errorKey).toBeUndefined();
    expect(output.toString()).toBe('abc');
  });

  it('ignores chunk extensions such as chunk-signature', async () => {
    const body = awsChunkedBody(Buffer.from('abcdef'), 4, [], {
      extension: `;chunk-signature=${'0'.repeat(64)}`,
    });
    const { output, errorKey } = await decode([body]);
    expect(errorKey).toBeUndefined();
    expect(output.toString()).toBe('abcdef');
  });

  it('accepts upper-case hex and leading zeros in sizes', async () => {
    const { output, errorKey } = await decode([
      Buffer.from('0000000000000000000A\r\n0123456789\r\n0\r\n\r\n'),
    ]);
    expect(errorKey).toBeUndefined();
    expect(output.toString()).toBe('0123456789');
  });

  it('tolerates a missing blank line after the last trailer', async () => {
    const body = awsChunkedBody(Buffer.from('abc'), 3, [CRC_TRAILER], { omitFinalCrlf: true });
    const { errorKey, decoder } = await decode([body], { expectedTrailers: ['x-amz-checksum-crc32'] });
    expect(errorKey).toBeUndefined();
    expect(decoder.trailers.get('x-amz-checksum-crc32')).toBe('AAAAAA==');
  });

  it('lower-cases trailer names and trims values', async () => {
    const body = Buffer.from('1\r\na\r\n0\r\nX-Amz-Checksum-CRC32 :  AAAAAA==  \r\n\r\n');
    const { errorKey } = await decode([body]);
    // A space before the colon is not a valid field name.
    expect(errorKey).toBe('InvalidChunkedEncoding');
    const good = Buffer.from('1\r\na\r\n0\r\nX-Amz-Checksum-CRC32:  AAAAAA==  \r\n\r\n');
    const { decoder } = await decode([good]);
    expect(decoder.trailers.get('x-amz-checksum-crc32')).toBe('AAAAAA==');
  });
});

describe('AwsChunkedDecoder: refusals', () => {
  it.each([
    ['a non-hex size', 'zz\r\nabc\r\n0\r\n\r\n'],
    ['an empty size line', '\r\nabc\r\n0\r\n\r\n'],
    ['a negative size', '-1\r\na\r\n0\r\n\r\n'],
    ['a size with spaces', ' 3\r\nabc\r\n0\r\n\r\n'],
    ['a bare LF after the size', '3\nabc\r\n0\r\n\r\n'],
    ['data longer than its size', '3\r\nabcd\r\n0\r\n\r\n'],
    ['no CRLF after the data', '3\r\nabcXY0\r\n\r\n'],
    ['a bare LF after the data', '3\r\nabc\n0\r\n\r\n'],
    ['a trailer without a colon', '3\r\nabc\r\n0\r\nx-amz-checksum-crc32 AAAAAA==\r\n\r\n'],
    [
      'a repeated trailer',
      '3\r\nabc\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n',
    ],
    ['bytes after the end', '3\r\nabc\r\n0\r\n\r\nextra'],
    ['a size beyond 2^53', '20000000000000\r\n'],
    ['an absurdly long size', `${'f'.repeat(40)}\r\n`],
  ])('refuses %s with InvalidChunkedEncoding', async (_label, body) => {
    for (const inputs of [[Buffer.from(body)], bytewise(Buffer.from(body))]) {
      const { errorKey } = await decode(inputs);
      expect(errorKey).toBe('InvalidChunkedEncoding');
    }
  });

  it('refuses a size line over 4 KiB before buffering more of it', async () => {
    const endless = Buffer.alloc(1024 * 1024, '0');
    const { errorKey } = await decode([endless]);
    expect(errorKey).toBe('InvalidChunkedEncoding');
    const longExtension = Buffer.from(`3;${'x'.repeat(5000)}\r\nabc\r\n0\r\n\r\n`);
    expect((await decode([longExtension])).errorKey).toBe('InvalidChunkedEncoding');
  });

  it('accepts a size line of exactly the limit, whole or a byte at a time', async () => {
    const line = `3;${'x'.repeat(4096 - 2)}`;
    const body = Buffer.from(`${line}\r\nabc\r\n0\r\n\r\n`);
    for (const inputs of [[body], bytewise(body)]) {
      const { errorKey, output } = await decode(inputs);
      expect(errorKey).toBeUndefined();
      expect(output.toString()).toBe('abc');
    }
  });

  it('keeps a long line whole while it arrives in pieces', async () => {
    const trailer = ['x-amz-meta-note', 'n'.repeat(1500)] as const;
    const body = awsChunkedBody(Buffer.from('abc'), 3, [trailer]);
    const { errorKey, decoder } = await decode(randomSplits(body, 7, 40));
    expect(errorKey).toBeUndefined();
    expect(decoder.trailers.get('x-amz-meta-note')).toBe(trailer[1]);
  });

  it('refuses too many trailers', async () => {
    const trailers = Array.from({ length: 17 }, (_, index) => [`x-extra-${index}`, 'v'] as const);
    const { errorKey } = await decode([awsChunkedBody(Buffer.from('a'), 1, trailers)]);
    expect(errorKey).toBe('InvalidChunkedEncoding');
  });

  it('refuses framing that promises more than x-amz-decoded-content-length', async () => {
    const { errorKey, output } = await decode([awsChunkedBody(Buffer.from('abcdef'), 6)], {
      decodedContentLength: 5,
    });
    expect(errorKey).toBe('InvalidChunkedEncoding');
    expect(output.length).toBe(0);
  });

  it.each([
    ['inside chunk data', 20],
    ['inside a size line', 1],
    ['before the final chunk', -1],
    ['inside a trailer line', -10],
  ])('reports a body cut off %s as IncompleteBody', async (_label, cut) => {
    const body = awsChunkedBody(DATA.subarray(0, 100), 50, [CRC_TRAILER]);
    const cutAt = (() => {
      if (cut === -1) return body.indexOf('0\r\nx-amz');
      if (cut === -10) return body.length - 10;
      if (cut === 1) return body.indexOf('\r\n') - 1;
      return body.indexOf('\r\n') + 2 + cut;
    })();
    const { errorKey } = await decode([body.subarray(0, cutAt)], { decodedContentLength: 100 });
    expect(errorKey).toBe('IncompleteBody');
  });

  it('reports a body shorter than x-amz-decoded-content-length as IncompleteBody', async () => {
    const { errorKey } = await decode([awsChunkedBody(Buffer.from('abc'), 3)], { decodedContentLength: 10 });
    expect(errorKey).toBe('IncompleteBody');
  });

  it('reports a declared trailer that never came as MissingTrailer', async () => {
    const { errorKey } = await decode([awsChunkedBody(Buffer.from('abc'), 3, [])], {
      decodedContentLength: 3,
      expectedTrailers: ['x-amz-checksum-crc32'],
    });
    expect(errorKey).toBe('MissingTrailer');
    const other = await decode([awsChunkedBody(Buffer.from('abc'), 3, [['x-amz-checksum-sha256', 'x']])], {
      expectedTrailers: ['x-amz-checksum-crc32'],
    });
    expect(other.errorKey).toBe('MissingTrailer');
  });
});

describe('AwsChunkedDecoder: checking what it decodes', () => {
  const data = DATA.subarray(0, 20_000);
  const crcOf = (bytes: Buffer) => digestOf('CRC32', bytes);
  const checked = (trailers: () => ReadonlyMap<string, string>) =>
    new PayloadCheck({
      expectedLength: data.length,
      checksum: { algorithm: 'CRC32', expected: () => trailers().get('x-amz-checksum-crc32') },
    });

  /** A decoder checking the CRC32 its own trailer declares, as openBody builds it. */
  function decoderWithCheck(): { decoder: AwsChunkedDecoder; check: PayloadCheck } {
    // The check reads the trailers once the decoder has read them to its end.
    const check = checked(() => decoder.trailers);
    const decoder = new AwsChunkedDecoder({
      decodedContentLength: data.length,
      expectedTrailers: ['x-amz-checksum-crc32'],
      check,
    });
    return { decoder, check };
  }

  it('delivers the whole body once the trailer matches, and tells the checksum', async () => {
    const body = awsChunkedBody(data, 8192, [['x-amz-checksum-crc32', await crcOf(data)]]);
    const { decoder, check } = decoderWithCheck();
    const { output, errorKey } = await runThrough(decoder, randomSplits(body, 3, 5000));
    expect(errorKey).toBeUndefined();
    expect(output.equals(data)).toBe(true);
    expect(check.verifiedChecksum).toEqual({ algorithm: 'CRC32', base64: await crcOf(data) });
  });

  it('never delivers the last chunk of a body whose trailer does not match (BadDigest)', async () => {
    const body = awsChunkedBody(data, 8192, [['x-amz-checksum-crc32', await crcOf(Buffer.from('other'))]]);
    const { decoder, check } = decoderWithCheck();
    const { output, errorKey } = await runThrough(decoder, [body]);
    expect(errorKey).toBe('BadDigest');
    expect(output.length).toBeLessThan(data.length);
    expect(data.subarray(0, output.length).equals(output)).toBe(true);
    expect(check.verifiedChecksum).toBeUndefined();
  });

  it('holds the last decoded bytes back while the framing is unfinished', async () => {
    const body = awsChunkedBody(data, 8192, [['x-amz-checksum-crc32', await crcOf(data)]]);
    const { decoder } = decoderWithCheck();
    // Everything but the trailer section: every chunk decoded, the framing not over.
    const { output, errorKey } = await runThrough(decoder, [body.subarray(0, body.indexOf('0\r\nx-amz'))]);
    expect(errorKey).toBe('IncompleteBody');
    expect(output.length).toBe(8192 * 2);
  });
});
