import { describe, expect, it } from 'vitest';
import { fileDataStart, formBoundary } from '../../../src/s3/steps/form-fields.js';

const BOUNDARY = 'XyZ';

function form(parts: string): Buffer {
  return Buffer.from(parts, 'latin1');
}

describe('the head of a form upload', () => {
  it('reads the boundary of a multipart/form-data type, quoted or not, and nothing else', () => {
    expect(formBoundary('multipart/form-data; boundary=----WebKitFormBoundaryA1')).toBe(
      '----WebKitFormBoundaryA1',
    );
    expect(formBoundary('multipart/form-data; charset=utf-8; boundary="a b"')).toBe('a b');
    for (const other of [
      undefined,
      'application/json',
      'multipart/mixed; boundary=x',
      'multipart/form-data',
    ]) {
      expect(formBoundary(other)).toBeNull();
    }
  });

  it("finds where the file's bytes start, after the file part's headers", () => {
    const head =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="key"\r\n\r\nk\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="name=\\"file\\".txt"\r\nContent-Type: text/plain\r\n\r\n`;
    expect(fileDataStart(form(`${head}file bytes`), BOUNDARY)).toBe(head.length);
    // A field whose file name mentions name="file" is not the file part.
    const decoy = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"; filename="name=\\"file\\""\r\n\r\nx\r\n`;
    expect(
      fileDataStart(
        form(`${decoy}--${BOUNDARY}\r\nContent-Disposition: form-data; name=file\r\n\r\n`),
        BOUNDARY,
      ),
    ).toBe(decoy.length + `--${BOUNDARY}\r\nContent-Disposition: form-data; name=file\r\n\r\n`.length);
  });

  it('waits for more of an incomplete head, and tells a form that ends without a file', () => {
    expect(
      fileDataStart(form(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"`), BOUNDARY),
    ).toBeNull();
    expect(
      fileDataStart(
        form(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="key"\r\n\r\nk\r\n--${BOUNDARY}--\r\n`),
        BOUNDARY,
      ),
    ).toBe('no-file');
  });
});
