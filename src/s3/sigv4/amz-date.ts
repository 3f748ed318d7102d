/**
 * SigV4 timestamps: `YYYYMMDD'T'HHMMSS'Z'` (ISO 8601 basic, UTC). The string-to-sign carries
 * the timestamp exactly as the client sent it in x-amz-date; a request signed with only a
 * `Date` header (RFC 7231 format) signs the same instant in ISO basic form.
 */

const ISO_BASIC = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

export interface SigningTimestamp {
  /** The ISO basic timestamp that goes into the string-to-sign. */
  readonly amzDate: string;
  readonly instant: Date;
}

/** Parses an ISO basic timestamp, refusing impossible dates (month 13, Feb 30). */
export function parseAmzDate(value: string): SigningTimestamp | undefined {
  const match = ISO_BASIC.exec(value);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Date.UTC(year, month - 1, day, hour, minute, second);
  const instant = new Date(millis);
  // Date.UTC rolls over out-of-range fields; a round trip catches that.
  if (formatAmzDate(instant) !== value) return undefined;
  return { amzDate: value, instant };
}

export function formatAmzDate(instant: Date): string {
  return instant
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
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
