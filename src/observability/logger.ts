import { createRequire } from 'node:module';
import { pino, type Logger, type LoggerOptions } from 'pino';
import type PinoPretty from 'pino-pretty';
import { readableMessage } from './readable-lines.js';

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

/** The fields every line of the gateway starts with, besides the process's own (LogFields). */
export const SERVICE_FIELDS = { service: 's3-gateway' };

export function createLogger(
  level: string,
  destination?: NodeJS.WritableStream,
  fields: LogFields = {},
): Logger {
  const options = loggerOptions(level, fields);
  return destination ? pino(options, destination as never) : pino(options);
}

function loggerOptions(level: string, fields: LogFields): LoggerOptions {
  return {
    level,
    base: { ...SERVICE_FIELDS, ...fields },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
}

/**
 * Readable lines are for a person watching a local gateway in a terminal; anything else reads
 * stdout with a program (a log shipper, a test, `> file`) and gets JSON. Production never gets
 * them: its log path stays the non-blocking JSON writer.
 */
export function wantsReadableLogs(
  mode: 'development' | 'production',
  stdout: { isTTY?: boolean } = process.stdout,
): boolean {
  return mode === 'development' && stdout.isTTY === true;
}

/**
 * createLogger's events (the same fields and redaction) printed by pino-pretty as one coloured
 * line each (readable-lines.ts), synchronously: in a terminal, lines in order matter more than
 * throughput. pino-pretty is loaded here only, so a production process never loads it.
 */
export function createReadableLogger(
  level: string,
  options: { fields?: LogFields; destination?: NodeJS.WritableStream } = {},
): Logger {
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  const stream = pretty({
    destination: options.destination ?? 1,
    sync: true,
    colorize: options.destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    // One line per event: readableMessage writes the fields itself.
    hideObject: true,
    messageFormat: (log) => readableMessage(log),
  });
  return pino(loggerOptions(level, options.fields ?? {}), stream);
}

const SECRET_QUERY_PARAMETER = /([?&](?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&]*/gi;

/** Strips the signature and credential from a request target before it is logged. */
export function redactRequestTarget(target: string): string {
  const query = target.indexOf('?');
  if (query === -1) return target;
  SECRET_QUERY_PARAMETER.lastIndex = 0;
  return target.replace(SECRET_QUERY_PARAMETER, '$1[redacted]');
}
