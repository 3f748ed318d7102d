import { spawn } from 'node:child_process';

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** The child's whole environment: nothing of the test runner's environment is inherited. */
  env: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * The minimal environment every client process starts from: Debian's binaries first (a pyenv
 * `aws` or `python3` earlier on the developer's PATH must not be picked up) and HOME pointing at
 * the client's scratch directory, so no real configuration (~/.aws, ~/.s3cfg, ~/.config/rclone)
 * is read or written.
 */
export function isolatedEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TZ: 'UTC', ...extra };
}

/** Runs a command to completion and collects its output; never throws for a non-zero exit. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env,
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timeoutMs = options.timeoutMs ?? 90_000;
    const timer = setTimeout(() => {
      stderr += `\n[e2e] killed after ${timeoutMs} ms`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A one-line description of a finished process for assertion messages. */
export function describeProcess(command: string, args: readonly string[], result: ProcessResult): string {
  const status = result.signal === null ? `exit ${result.code}` : `signal ${result.signal}`;
  return `${command} ${args.join(' ')} → ${status}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}
