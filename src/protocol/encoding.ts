/**
 * Percent-encoding as S3 and SigV4 use it, in its two readings:
 *
 * - SigV4's encoder: every byte outside the unreserved set (A-Z a-z 0-9 - _ . ~) becomes %XX with
 *   upper-case hex. Clients disagree on how they escape the same key (`~` vs `%7E`, `%2f` vs
 *   `%2F`), so signatures are checked against what arrived decoded and re-encoded this one way.
 * - Two decoders: a lenient one for canonicalisation (a stray `%` stays a literal, so any client's
 *   signature can be reproduced), and a strict one for addressing (a malformed escape or bytes that
 *   are not UTF-8 are refused, so one path can never name two objects).
 */

const HEX_DIGITS = '0123456789ABCDEF';

/** 1 for bytes SigV4 leaves as they are. */
const UNRESERVED = new Uint8Array(256);
for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~') {
  UNRESERVED[char.charCodeAt(0)] = 1;
}

/** The two-character escape of every byte, `%00`..`%FF`, built once. */
const ESCAPES: readonly string[] = Array.from(
  { length: 256 },
  (_, byte) => `%${HEX_DIGITS[byte >> 4] ?? ''}${HEX_DIGITS[byte & 0x0f] ?? ''}`,
);

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

function isUpperHex(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46);
}

export function sigV4EncodeBytes(bytes: Uint8Array): string {
  let encoded = '';
  for (const byte of bytes) {
    encoded += UNRESERVED[byte] === 1 ? String.fromCharCode(byte) : (ESCAPES[byte] ?? '');
  }
  return encoded;
}

/** True when SigV4 would encode the text as it is (only unreserved ASCII). */
function isUnreserved(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code > 0x7f || UNRESERVED[code] !== 1) return false;
  }
  return true;
}

/** Encodes the UTF-8 bytes of `text`. */
export function sigV4Encode(text: string): string {
  return isUnreserved(text) ? text : sigV4EncodeBytes(Buffer.from(text, 'utf8'));
}

/**
 * True when `text` is already in SigV4's one spelling: unreserved characters and upper-case
 * escapes of bytes that must be escaped. Most signed requests arrive this way, so checking is far
 * cheaper than decoding and encoding again.
 */
function isCanonicallyEncoded(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x25) {
      const high = text.charCodeAt(index + 1);
      const low = text.charCodeAt(index + 2);
      if (!isUpperHex(high) || !isUpperHex(low)) return false;
      if (UNRESERVED[(hexValue(high) << 4) | hexValue(low)] === 1) return false;
      index += 2;
    } else if (code > 0x7f || UNRESERVED[code] !== 1) {
      return false;
    }
  }
  return true;
}

/**
 * Decodes %XX escapes into raw bytes. Decoding to bytes (not to a JS string) keeps escapes that
 * are not valid UTF-8 intact through a decode/re-encode round trip. A `%` not followed by two hex
 * digits is kept as a literal `%`, so a sloppy client still gets a deterministic canonical form.
 * `+` is a literal plus: S3 does not read it as a space, and SigV4 signers send spaces as %20.
 */
export function percentDecodeToBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index += 1) {
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
      // Node refuses non-ASCII request targets, so this only happens for callers that pass an
      // already-decoded string: treat it as UTF-8 text.
      const char = String.fromCodePoint(text.codePointAt(index) ?? code);
      for (const byte of Buffer.from(char, 'utf8')) bytes.push(byte);
      index += char.length - 1;
    }
  }
  return Buffer.from(bytes);
}

/** Decode then re-encode: the single canonical spelling of a path segment or query component. */
export function normalisePercentEncoding(text: string): string {
  return isCanonicallyEncoded(text) ? text : sigV4EncodeBytes(percentDecodeToBytes(text));
}

/** Lenient decoding to text, for reading values such as X-Amz-Credential. */
export function lenientPercentDecode(text: string): string {
  return text.includes('%') ? percentDecodeToBytes(text).toString('utf8') : text;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The decoded text, or null when an escape is malformed or the bytes are not UTF-8. */
export function strictPercentDecode(text: string): string | null {
  // Most escapes name ASCII (a slash, a space): those decode to the character itself, without
  // the byte buffer and UTF-8 decoder the others need.
  let decoded = '';
  let from = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    // Node refuses raw non-ASCII request targets; header values may still carry Latin-1 bytes.
    if (code > 0x7f) return null;
    if (code !== 0x25) continue;
    const high = hexValue(text.charCodeAt(index + 1));
    const low = hexValue(text.charCodeAt(index + 2));
    if (high < 0 || low < 0) return null;
    const byte = (high << 4) | low;
    if (byte > 0x7f) return decodeUtf8Escapes(text);
    decoded += `${text.slice(from, index)}${String.fromCharCode(byte)}`;
    index += 2;
    from = index + 1;
  }
  return from === 0 ? text : `${decoded}${text.slice(from)}`;
}

/** strictPercentDecode of text whose escapes spell bytes beyond ASCII (UTF-8 sequences). */
function decodeUtf8Escapes(text: string): string | null {
  const bytes = new Uint8Array(text.length);
  let length = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x25) {
      const high = hexValue(text.charCodeAt(index + 1));
      const low = hexValue(text.charCodeAt(index + 2));
      if (high < 0 || low < 0) return null;
      bytes[length++] = (high << 4) | low;
      index += 2;
    } else if (code < 0x80) {
      bytes[length++] = code;
    } else {
      return null;
    }
  }
  try {
    return utf8.decode(bytes.subarray(0, length));
  } catch {
    return null;
  }
}
