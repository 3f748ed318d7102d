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

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service: 's3-gateway' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination as never) : pino(options);
}

/** Strips the signature and credential from a request target before it is logged. */
export function redactRequestTarget(target: string): string {
  return target.replace(
    /([?&](?:X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token)=)[^&]*/gi,
    '$1[redacted]',
  );
}
