/**
 * SigV4 timestamps: `YYYYMMDD'T'HHMMSS'Z'` (ISO 8601 basic, UTC). The string-to-sign carries the
 * timestamp exactly as the client sent it in x-amz-date; a request signed with only a `Date`
 * header (RFC 7231 format) signs the same instant in ISO basic form.
 */

/** The number the `count` ASCII digits of `text` at `from` spell, or -1 when one is not a digit. */
function digitsAt(text: string, from: number, count: number): number {
  let value = 0;
  for (let index = from; index < from + count; index += 1) {
    const digit = text.charCodeAt(index) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

export interface SigningTimestamp {
  /** The ISO basic timestamp that goes into the string-to-sign. */
  readonly amzDate: string;
  readonly instant: Date;
}

/** Parses an ISO basic timestamp, refusing impossible dates (month 13, Feb 30, 25:00). */
export function parseAmzDate(value: string): SigningTimestamp | undefined {
  // Read by position rather than by a regular expression: every signed request has one.
  if (value.length !== 16 || value.charCodeAt(8) !== 0x54 || value.charCodeAt(15) !== 0x5a) return undefined;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 4, 2);
  const day = digitsAt(value, 6, 2);
  const hour = digitsAt(value, 9, 2);
  const minute = digitsAt(value, 11, 2);
  const second = digitsAt(value, 13, 2);
  if (year < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const instant = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC rolls an impossible day over into the next month; such a date does not exist.
  if (instant.getUTCDate() !== day || instant.getUTCFullYear() !== year) return undefined;
  return { amzDate: value, instant };
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

export function formatAmzDate(instant: Date): string {
  const year = String(instant.getUTCFullYear()).padStart(4, '0');
  return (
    `${year}${pad2(instant.getUTCMonth() + 1)}${pad2(instant.getUTCDate())}` +
    `T${pad2(instant.getUTCHours())}${pad2(instant.getUTCMinutes())}${pad2(instant.getUTCSeconds())}Z`
  );
}

/** An HTTP `Date` header (IMF-fixdate or the legacy forms `Date.parse` accepts) as a signing timestamp. */
export function parseHttpDate(value: string): SigningTimestamp | undefined {
  const iso = parseAmzDate(value);
  if (iso !== undefined) return iso;
  // Date.parse accepts far more than HTTP dates (e.g. "1"); demand a weekday/month-name form.
  if (!/^[A-Za-z]{3},? /.test(value) || !/GMT$|UTC$|[+-]0000$/.test(value)) return undefined;
  const millis = Date.parse(value);
  if (Number.isNaN(millis)) return undefined;
  const instant = new Date(millis);
  return { amzDate: formatAmzDate(instant), instant };
}

/** The credential-scope date of a timestamp: its first eight characters. */
export function scopeDateOf(amzDate: string): string {
  return amzDate.slice(0, 8);
}
