/**
 * The storage endpoint's access log: one JSON line per request, in the shape pino gives every
 * other line of the gateway (`level`, `time`, the process's fields, the entry, `msg`).
 *
 * In production the line is built here rather than by pino: its fields are fixed and hold no
 * secret (the target's signature parameters are redacted before it is logged), so neither pino's
 * loop over an object's keys and serializers nor its redaction pass has anything to do, and at
 * one line per request that loop cost a storage worker 3-5% of its CPU per 4 KiB request
 * (BENCHMARKS.md, change 16). Written without ever blocking the event loop (line-writer.ts); beyond
 * {@link ACCESS_LOG_MAX_BUFFER_BYTES} waiting for a reader that stopped reading (a stuck log
 * shipper), lines are dropped and counted by `onDrop`.
 */
import { pino, type Logger } from 'pino';
import { IsoClock } from './iso-time.js';
import { LineWriter } from './line-writer.js';
import { SERVICE_FIELDS, type LogFields } from './logger.js';

/** What the access log may hold in memory while stdout is not being read, before it drops lines. */
export const ACCESS_LOG_MAX_BUFFER_BYTES = 16 * 1024 * 1024;

/** The message of every access log line. */
export const ACCESS_LOG_MESSAGE = 's3 request';

/** One request, as its access log line gives it (in this order). */
export interface AccessEntry {
  readonly requestId: string;
  readonly method: string;
  /** The request target, signature and credential redacted (redactRequestTarget). */
  readonly target: string;
  readonly operation: string;
  readonly status: number;
  /** The S3 error code answered, '' on success. */
  readonly code: string;
  readonly bucket: string | null;
  readonly accessKeyId: string | null;
  readonly organisationId: string | null;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly durationMs: number;
  readonly userAgent: string | null;
  readonly remoteAddress: string | null;
}

export interface AccessLog {
  record(entry: AccessEntry): void;
  /** Writes what waits (shutdown). */
  flush(): void;
}

/** Lines for a person or a test: through a pino logger (readable lines in a terminal). */
export function accessLogThrough(logger: Logger): AccessLog {
  return {
    record: (entry) => logger.info(entry, ACCESS_LOG_MESSAGE),
    flush: () => logger.flush(),
  };
}

function text(value: string | null): string {
  return value === null ? 'null' : JSON.stringify(value);
}

/** A number as JSON gives it (pino writes a number that is not finite as null). */
function number(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * The production access log: JSON lines on stdout (or `fd`), at info level, so a log level above
 * info (warn, error, silent) turns it off as it does pino's lines.
 */
export function createAccessLog(
  level: string,
  options: { fields?: LogFields; onDrop?: (lines: number) => void; fd?: number } = {},
): AccessLog {
  const destination = new LineWriter({
    maxBufferedBytes: ACCESS_LOG_MAX_BUFFER_BYTES,
    ...(options.fd === undefined ? {} : { fd: options.fd }),
    ...(options.onDrop === undefined ? {} : { onDrop: options.onDrop }),
  });
  const info = pino.levels.values.info ?? 30;
  const enabled = (pino.levels.values[level] ?? Number.POSITIVE_INFINITY) <= info;
  const fields = JSON.stringify({ ...SERVICE_FIELDS, ...options.fields }).slice(1, -1);
  const end = `,"msg":${JSON.stringify(ACCESS_LOG_MESSAGE)}}\n`;
  const clock = new IsoClock();
  return {
    record(entry) {
      if (!enabled) return;
      destination.write(
        `{"level":${info},"time":"${clock.text()}",${fields}` +
          `,"requestId":${text(entry.requestId)},"method":${text(entry.method)}` +
          `,"target":${text(entry.target)},"operation":${text(entry.operation)}` +
          `,"status":${number(entry.status)},"code":${text(entry.code)},"bucket":${text(entry.bucket)}` +
          `,"accessKeyId":${text(entry.accessKeyId)},"organisationId":${text(entry.organisationId)}` +
          `,"bytesIn":${number(entry.bytesIn)},"bytesOut":${number(entry.bytesOut)}` +
          `,"durationMs":${number(entry.durationMs)},"userAgent":${text(entry.userAgent)}` +
          `,"remoteAddress":${text(entry.remoteAddress)}${end}`,
      );
    },
    flush: () => destination.flush(),
  };
}
