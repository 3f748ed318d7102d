/**
 * How a log event reads in a terminal (local mode): the message, then the event's own fields as
 * key=value on the same line; a storage access line as the request and its answer. pino-pretty
 * adds the time and the level in front.
 */

/** Fields every line carries, or that pino-pretty shows itself. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service']);

const ACCESS_MESSAGE = 's3 request';
const ERROR_LEVEL = 50;

export function readableMessage(log: Record<string, unknown>): string {
  const message = typeof log.msg === 'string' ? log.msg : '';
  if (message === ACCESS_MESSAGE) return accessLine(log);
  const fields = Object.entries(log)
    .filter(([key, value]) => !OMITTED.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldValue(value)}`);
  const line = [message, ...fields].filter((part) => part !== '').join(' ');
  const stack = errorStack(log);
  return stack !== null && Number(log.level) >= ERROR_LEVEL ? `${line}\n${stack}` : line;
}

/** GET /photos/cat.jpg → 200 (3.1 ms, 1204 B out, GWK1…, worker 2) */
function accessLine(log: Record<string, unknown>): string {
  const answer = [log.status, log.code].filter((part) => part !== null && part !== undefined).join(' ');
  const details = [
    `${String(log.durationMs)} ms`,
    typeof log.bytesIn === 'number' && log.bytesIn > 0 ? `${log.bytesIn} B in` : null,
    typeof log.bytesOut === 'number' && log.bytesOut > 0 ? `${log.bytesOut} B out` : null,
    typeof log.accessKeyId === 'string' ? log.accessKeyId : 'anonymous',
    log.worker === undefined ? null : `worker ${String(log.worker)}`,
    `request ${String(log.requestId)}`,
  ].filter((part) => part !== null);
  return `${String(log.method)} ${String(log.target)} → ${answer} (${details.join(', ')})`;
}

function fieldValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (isError(value)) return JSON.stringify(`${value.type ?? 'Error'}: ${value.message ?? ''}`);
  return JSON.stringify(value);
}

interface SerialisedError {
  type?: string;
  message?: string;
  stack?: string;
}

function isError(value: unknown): value is SerialisedError {
  return typeof value === 'object' && value !== null && 'message' in value && 'stack' in value;
}

function errorStack(log: Record<string, unknown>): string | null {
  const error = log.err;
  return isError(error) && typeof error.stack === 'string' ? error.stack : null;
}
