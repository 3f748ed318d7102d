import { pino, type Logger, type LoggerOptions } from 'pino';
import { LineWriter } from './line-writer.js';

export type { Logger };

/**
 * Paths pino blanks out wherever they appear in a log object. The code never logs these on purpose;
 * this is the net under it.
 */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'newPassword',
  '*.newPassword',
  'currentPassword',
  '*.currentPassword',
  'secret',
  '*.secret',
  'secretAccessKey',
  '*.secretAccessKey',
  'token',
  '*.token',
  'access_token',
  '*.access_token',
  'refreshToken',
  '*.refreshToken',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.cookie',
  'cookie',
  '*.cookie',
  'masterKey',
  '*.masterKey',
  'jwtSecret',
  '*.jwtSecret',
];

/** Fields on every line besides the service name, e.g. `{ worker: 2 }` in a storage worker. */
export type LogFields = Readonly<Record<string, string | number>>;

export function createLogger(
  level: string,
  destination?: NodeJS.WritableStream,
  fields: LogFields = {},
): Logger {
  const options: LoggerOptions = {
    level,
    base: { ...BASE, ...fields },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination as never) : pino(options);
}

const BASE = { service: 's3-gateway' };

/** What the access log may hold in memory while stdout is not being read, before it drops lines. */
export const ACCESS_LOG_MAX_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * The storage endpoint's access log on stdout: one line per request, built by the gateway from
 * fields that hold no secret (the target's signature parameters are redacted before it is
 * logged), so it skips the redaction pass, which would cost more than the line itself. Written
 * without ever blocking the event loop (line-writer.ts); beyond
 * {@link ACCESS_LOG_MAX_BUFFER_BYTES} waiting for a reader that stopped reading (a stuck log
 * shipper), lines are dropped and counted by `onDrop`.
 */
export function createAccessLogger(
  level: string,
  options: { fields?: LogFields; onDrop?: (lines: number) => void; fd?: number } = {},
): Logger {
  const destination = new LineWriter({
    maxBufferedBytes: ACCESS_LOG_MAX_BUFFER_BYTES,
    ...(options.fd === undefined ? {} : { fd: options.fd }),
    ...(options.onDrop === undefined ? {} : { onDrop: options.onDrop }),
  });
  const loggerOptions: LoggerOptions = {
    level,
    base: { ...BASE, ...options.fields },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return pino(loggerOptions, destination);
}

const SECRET_QUERY_PARAMETER = /([?&](?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&]*/gi;

/** Strips the signature and credential from a request target before it is logged. */
export function redactRequestTarget(target: string): string {
  const query = target.indexOf('?');
  if (query === -1) return target;
  SECRET_QUERY_PARAMETER.lastIndex = 0;
  return target.replace(SECRET_QUERY_PARAMETER, '$1[redacted]');
}
