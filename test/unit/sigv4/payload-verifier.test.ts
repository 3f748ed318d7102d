import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { isS3Error } from '../../../src/protocol/errors.js';
import { digestOf } from '../../../src/sigv4/checksums.js';
import { PayloadVerifier, type PayloadVerifierOptions } from '../../../src/sigv4/payload-verifier.js';
import { runThrough, splitBySizes, testData } from './helpers.js';

const DATA = testData(50_000, 3);
const SHA256_HEX = createHash('sha256').update(DATA).digest('hex');
const MD5_BASE64 = createHash('md5').update(DATA).digest('base64');
const PIECES = splitBySizes(DATA, [16_384]);
const LAST_PIECE = PIECES.at(-1) ?? Buffer.alloc(0);

async function verify(options: PayloadVerifierOptions, inputs: Buffer[] = PIECES) {
  const verifier = new PayloadVerifier(options);
  return { ...(await runThrough(verifier, inputs)), verifier };
}

/** Output is every byte except the held-back final chunk: the downstream never saw the end. */
function expectTailWithheld(output: Buffer): void {
  expect(output.length).toBe(DATA.length - LAST_PIECE.length);
  expect(output.equals(DATA.subarray(0, output.length))).toBe(true);
}

describe('PayloadVerifier: matching bodies', () => {
  it('forwards the whole body when the signed SHA-256 matches', async () => {
    const { output, errorKey } = await verify({ sha256Hex: SHA256_HEX, expectedLength: DATA.length });
    expect(errorKey).toBeUndefined();
    expect(output.equals(DATA)).toBe(true);
  });

  it('accepts an upper-case hex SHA-256', async () => {
    const { errorKey } = await verify({ sha256Hex: SHA256_HEX.toUpperCase() });
    expect(errorKey).toBeUndefined();
  });

  it('forwards the body when checksum header, trailer checksum and Content-MD5 match', async () => {
    const crc = await digestOf('CRC32C', DATA);
    const header = await verify({ checksum: { algorithm: 'CRC32C', expected: crc }, contentMd5: MD5_BASE64 });
    expect(header.errorKey).toBeUndefined();
    expect(header.output.equals(DATA)).toBe(true);
    expect(header.verifier.verifiedChecksum).toEqual({ algorithm: 'CRC32C', base64: crc });

    const trailer = await verify({ checksum: { algorithm: 'CRC32C', expected: () => crc } });
    expect(trailer.errorKey).toBeUndefined();
  });

  it('reads a trailer value only once the body has ended', async () => {
    const trailer: { value?: string } = {};
    const verifier = new PayloadVerifier({
      checksum: { algorithm: 'SHA1', expected: () => trailer.value },
    });
    const expected = await digestOf('SHA1', DATA);
    const done = runThrough(verifier, PIECES);
    // Set after the stream started: a value read up front would be undefined.
    trailer.value = expected;
    expect((await done).errorKey).toBeUndefined();
  });

  it('passes an empty body', async () => {
    const { errorKey, output } = await verify(
      { sha256Hex: createHash('sha256').digest('hex'), expectedLength: 0 },
      [],
    );
    expect(errorKey).toBeUndefined();
    expect(output.length).toBe(0);
  });
});

describe('PayloadVerifier: hold-back', () => {
  it('emits each chunk only once the next one has arrived', () => {
    const verifier = new PayloadVerifier({ sha256Hex: SHA256_HEX });
    const seen: Buffer[] = [];
    verifier.on('data', (chunk: Buffer) => seen.push(chunk));
    const [first, second] = PIECES;
    if (first === undefined || second === undefined) throw new Error('need two pieces');
    verifier.write(first);
    expect(seen).toEqual([]);
    verifier.write(second);
    expect(seen).toEqual([first]);
    verifier.destroy();
  });

  it('never lets the final bytes through when the SHA-256 does not match', async () => {
    const wrong = createHash('sha256').update('something else').digest('hex');
    const { output, errorKey, error } = await verify({ sha256Hex: wrong, expectedLength: DATA.length });
    expect(errorKey).toBe('XAmzContentSHA256Mismatch');
    expect(isS3Error(error) && error.status).toBe(400);
    expectTailWithheld(output);
  });

  it('never lets the final bytes through when the last byte was corrupted', async () => {
    const corrupted = Buffer.from(DATA);
    corrupted[corrupted.length - 1] = (corrupted[corrupted.length - 1] ?? 0) ^ 0xff;
    const { output, errorKey } = await verify(
      { checksum: { algorithm: 'CRC32', expected: await digestOf('CRC32', DATA) } },
      splitBySizes(corrupted, [16_384]),
    );
    expect(errorKey).toBe('BadDigest');
    expectTailWithheld(output);
  });

  it('withholds the whole body when it arrives as a single chunk', async () => {
    const { output, errorKey } = await verify({ contentMd5: '1B2M2Y8AsgTpgAmY7PhCfg==' }, [DATA]);
    expect(errorKey).toBe('BadDigest');
    expect(output.length).toBe(0);
  });

  it('still withholds the tail when the downstream is slow', async () => {
    const verifier = new PayloadVerifier({ sha256Hex: '0'.repeat(64) });
    const { output, errorKey } = await runThrough(verifier, PIECES, { slowSink: true });
    expect(errorKey).toBe('XAmzContentSHA256Mismatch');
    // The failing pipeline may also cut off chunks still queued for the slow sink; what
    // matters is that the final bytes never arrive.
    expect(output.length).toBeLessThanOrEqual(DATA.length - LAST_PIECE.length);
    expect(output.equals(DATA.subarray(0, output.length))).toBe(true);
  });
});

describe('PayloadVerifier: refusals', () => {
  it('refuses a checksum mismatch with BadDigest', async () => {
    const { errorKey } = await verify({
      checksum: { algorithm: 'CRC64NVME', expected: await digestOf('CRC64NVME', Buffer.from('x')) },
    });
    expect(errorKey).toBe('BadDigest');
  });

  it('refuses a Content-MD5 mismatch with BadDigest even when the SHA-256 matches', async () => {
    const { errorKey } = await verify({ sha256Hex: SHA256_HEX, contentMd5: '1B2M2Y8AsgTpgAmY7PhCfg==' });
    expect(errorKey).toBe('BadDigest');
  });

  it('reports the payload hash before the checksum', async () => {
    const { errorKey } = await verify({
      sha256Hex: '0'.repeat(64),
      checksum: { algorithm: 'CRC32', expected: 'AAAAAA==' },
    });
    expect(errorKey).toBe('XAmzContentSHA256Mismatch');
  });

  it('refuses a short body with IncompleteBody and withholds its tail', async () => {
    const { errorKey, output } = await verify({ sha256Hex: SHA256_HEX, expectedLength: DATA.length + 1 });
    expect(errorKey).toBe('IncompleteBody');
    expectTailWithheld(output);
  });

  it('refuses a body longer than declared', async () => {
    const { errorKey, output } = await verify({ expectedLength: DATA.length - 1 });
    expect(errorKey).toBe('IncompleteBody');
    expect(output.length).toBeLessThan(DATA.length);
  });

  it('refuses a missing trailer value with MissingTrailer', async () => {
    const { errorKey, output } = await verify({
      checksum: { algorithm: 'CRC32', expected: () => undefined },
    });
    expect(errorKey).toBe('MissingTrailer');
    expectTailWithheld(output);
  });

  it('refuses a malformed trailer value with InvalidDigest', async () => {
    const { errorKey } = await verify({ checksum: { algorithm: 'SHA256', expected: () => 'AAAAAA==' } });
    expect(errorKey).toBe('InvalidDigest');
  });
});
