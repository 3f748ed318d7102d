/**
 * The exit codes scripts rely on (README, "Command line"). Every failure the CLI reports is one of
 * these errors; main.ts prints its message as one line on stderr and exits with its code.
 */
export const EXIT_CODES = {
  ok: 0,
  /** The gateway answered and refused (a problem+json), or reported itself not ready. */
  refused: 1,
  /** The command line itself is wrong: unknown command or option, bad value, unreadable file. */
  usage: 2,
  /** Not logged in, the session ended or expired, or the login itself was refused. */
  notLoggedIn: 3,
  /** The gateway could not be reached: connection refused, name not resolved, TLS failure, timeout. */
  unreachable: 4,
  /**
   * s3gw failed on this machine: its profile cannot be read, written or locked, or something it did
   * not expect happened (S3GW_DEBUG=1 shows where).
   */
  local: 5,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.usage);
  }
}

export class NotLoggedInError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.notLoggedIn);
  }
}

export class GatewayUnreachableError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.unreachable);
  }
}

export class LocalError extends CliError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, EXIT_CODES.local, options);
  }
}

export class RefusedError extends CliError {
  constructor(message: string) {
    super(message, EXIT_CODES.refused);
  }
}
