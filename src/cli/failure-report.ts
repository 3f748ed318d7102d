import { CommanderError } from 'commander';
import { CliError, EXIT_CODES, type ExitCode } from './errors.js';

/** Set (to anything but "", 0 or false) to see the stack of a failure, for a bug report. */
export const DEBUG_VARIABLE = 'S3GW_DEBUG';

/**
 * How a command that threw ends: one line on stderr and the exit code scripts rely on. An error
 * s3gw did not expect is a line too (exit code 5); its stack is for whoever debugs it, on request.
 */
export function reportFailure(
  error: unknown,
  stderr: { write(text: string): unknown } = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): ExitCode {
  // commander has already printed its own message (or the help, or the version).
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
  const debug = !['', '0', 'false'].includes((env[DEBUG_VARIABLE] ?? '').trim().toLowerCase());
  const expected = error instanceof CliError;
  const message = error instanceof Error ? error.message : String(error);
  const hint = expected || debug ? '' : ` (${DEBUG_VARIABLE}=1 shows where)`;
  stderr.write(`s3gw: ${expected ? '' : 'unexpected failure: '}${oneLine(message)}${hint}\n`);
  if (debug) {
    for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
      stderr.write(`${cause === error ? '' : 'caused by: '}${cause.stack ?? cause.message}\n`);
    }
  }
  return expected ? error.exitCode : EXIT_CODES.local;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
