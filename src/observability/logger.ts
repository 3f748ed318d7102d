import { pino, type Logger, type LoggerOptions } from 'pino';

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

/**
 * The storage endpoint's access log: one line per request, built by the gateway from fields that
 * hold no secret (the target's signature parameters are redacted before it is logged), so it
 * skips the redaction pass, which would cost more than the line itself. On stdout it is written
 * asynchronously: lines that arrive while a write is under way go out together in the next one,
 * each write at most 4096 bytes of whole lines, so that the lines of several processes sharing
 * one pipe never interleave (writes up to PIPE_BUF are atomic).
 */
export function createAccessLogger(
  level: string,
  destination?: NodeJS.WritableStream,
  fields: LogFields = {},
): Logger {
  const options: LoggerOptions = {
    level,
    base: { ...BASE, ...fields },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return pino(options, (destination ?? pino.destination({ dest: 1, sync: false, maxWrite: 4096 })) as never);
}

const SECRET_QUERY_PARAMETER = /([?&](?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&]*/gi;

/** Strips the signature and credential from a request target before it is logged. */
export function redactRequestTarget(target: string): string {
  const query = target.indexOf('?');
  if (query === -1) return target;
  SECRET_QUERY_PARAMETER.lastIndex = 0;
  return target.replace(SECRET_QUERY_PARAMETER, '$1[redacted]');
}
