/**
 * Strict percent-decoding for the parts of a request that name a bucket, a key or a copy source.
 * The SigV4 canonicaliser is lenient (a stray `%` stays a literal) because it must reproduce
 * whatever a client signed; addressing must not be: two readings of one path could name two
 * objects. So a `%` without two hex digits after it, or bytes that are not UTF-8, are refused.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true });

function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** The decoded text, or null when an escape is malformed or the bytes are not UTF-8. */
export function strictPercentDecode(text: string): string | null {
  // eslint-disable-next-line no-control-regex -- the ASCII range, checked in one pass for the common case
  if (/^[\x00-\x7f]*$/.test(text) && !text.includes('%')) return text;
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x25) {
      const high = hexValue(text.charCodeAt(index + 1));
      const low = hexValue(text.charCodeAt(index + 2));
      if (high < 0 || low < 0) return null;
      bytes.push((high << 4) | low);
      index += 2;
    } else if (code < 0x80) {
      bytes.push(code);
    } else {
      // Node refuses raw non-ASCII request targets; header values may still carry Latin-1 bytes.
      return null;
    }
  }
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    return null;
  }
}

/** True when a `/`-separated key has a `.` or `..` segment (after decoding, so `%2E` counts). */
export function hasDotSegment(decodedKey: string): boolean {
  return decodedKey.split('/').some((segment) => segment === '.' || segment === '..');
}
