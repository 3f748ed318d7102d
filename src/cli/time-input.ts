import { UsageError } from './errors.js';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** "90" (seconds), "90s", "15m", "12h", "30d", "2w" → seconds. */
export function parseDuration(text: string, option: string): number {
  const match = /^(\d+)([smhdw]?)$/.exec(text.trim());
  if (match === null) {
    throw new UsageError(`${option} expects a duration such as 90s, 15m, 12h, 30d or 2w, not "${text}"`);
  }
  return Number(match[1]) * UNIT_SECONDS[match[2] || 's']!;
}

/**
 * A point in time given as an ISO date or date-time (2030-01-31, 2030-01-31T12:00:00Z) or as a
 * duration counted from `now`, forwards (`direction` 1: "30d" = in 30 days) or backwards (-1).
 */
export function parseInstant(text: string, option: string, direction: 1 | -1, now = new Date()): string {
  const trimmed = text.trim();
  if (/^\d+[smhdw]?$/.test(trimmed)) {
    return new Date(now.getTime() + direction * parseDuration(trimmed, option) * 1000).toISOString();
  }
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(trimmed)) {
    const parsed = new Date(trimmed);
    if (!Number.isNaN(parsed.getTime())) return parsed.toISOString();
  }
  throw new UsageError(
    `${option} expects a date (2030-01-31), a date-time (2030-01-31T12:00:00Z) or a duration (30d), not "${text}"`,
  );
}
