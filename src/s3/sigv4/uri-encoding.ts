/**
 * Percent-encoding as SigV4 defines it: every byte outside the unreserved set
 * (A-Z a-z 0-9 - _ . ~) becomes %XX with upper-case hex. Clients disagree on how they
 * escape the same key (`~` vs `%7E`, `%2f` vs `%2F`), so the verifier decodes what
 * arrived and re-encodes it with this one encoder before comparing.
 */

const HEX_DIGITS = '0123456789ABCDEF';

/** 1 for bytes SigV4 leaves as they are. */
const UNRESERVED = new Uint8Array(256);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~') {
  UNRESERVED[char.charCodeAt(0)] = 1;
}

export function sigV4EncodeBytes(bytes: Uint8Array): string {
  let encoded = '';
  for (const byte of bytes) {
    encoded +=
      UNRESERVED[byte] === 1
        ? String.fromCharCode(byte)
        : `%${HEX_DIGITS[byte >> 4] ?? ''}${HEX_DIGITS[byte & 0x0f] ?? ''}`;
  }
  return encoded;
}

/** Encodes the UTF-8 bytes of `text`. */
export function sigV4Encode(text: string): string {
  return sigV4EncodeBytes(Buffer.from(text, 'utf8'));
}

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/**
 * Decodes %XX escapes into raw bytes. Decoding to bytes (not to a JS string) keeps
 * escapes that are not valid UTF-8 intact through a decode/re-encode round trip.
 * A `%` not followed by two hex digits is kept as a literal `%`, so a sloppy client
 * still gets a deterministic canonical form instead of an exception. `+` is a literal
 * plus: S3 does not treat it as a space in the path, and SigV4 signers send spaces as %20.
 */
export function percentDecodeToBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x25 && index + 2 < text.length) {
      const high = hexValue(text.charCodeAt(index + 1));
      const low = hexValue(text.charCodeAt(index + 2));
      if (high >= 0 && low >= 0) {
        bytes.push((high << 4) | low);
        index += 2;
        continue;
      }
    }
    if (code < 0x80) {
      bytes.push(code);
    } else {
      // Node refuses non-ASCII request targets, so this only happens for callers that
      // pass an already-decoded string: treat it as UTF-8 text.
      const char = String.fromCodePoint(text.codePointAt(index) ?? code);
      for (const byte of Buffer.from(char, 'utf8')) bytes.push(byte);
      index += char.length - 1;
    }
  }
  return Buffer.from(bytes);
}

/** Decode then re-encode: the single canonical spelling of a path segment or query component. */
export function normalisePercentEncoding(text: string): string {
  return sigV4EncodeBytes(percentDecodeToBytes(text));
}

export interface DecodedQueryParameter {
  readonly name: string;
  readonly value: string;
}

/**
 * Splits a raw query string into decoded (UTF-8) name/value pairs, in arrival order, for
 * reading parameter values such as X-Amz-Credential. Empty pieces (`&&`) are skipped.
 */
export function decodeQueryParameters(rawQuery: string): DecodedQueryParameter[] {
  const parameters: DecodedQueryParameter[] = [];
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const equals = piece.indexOf('=');
    const rawName = equals === -1 ? piece : piece.slice(0, equals);
    const rawValue = equals === -1 ? '' : piece.slice(equals + 1);
    parameters.push({
      name: percentDecodeToBytes(rawName).toString('utf8'),
      value: percentDecodeToBytes(rawValue).toString('utf8'),
    });
  }
  return parameters;
}
