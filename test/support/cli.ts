/**
 * The admin command line as people run it: `bin/s3gw.js` (what `npx s3gw` starts) in a process of
 * its own, with a configuration directory of its own, so that no real ~/.config/s3gw is read or
 * written.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
export const CLI_ENTRY = path.join(REPOSITORY, 'bin', 's3gw.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Written to the command's stdin, which is then closed. */
  stdin?: string;
  env?: Record<string, string>;
}

/** Runs the CLI against one configuration directory (XDG_CONFIG_HOME), as one person's machine. */
export class CliUser {
  readonly configHome = mkdtempSync(path.join(tmpdir(), 's3gw-cli-'));

  run(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
    return runCli(args, { ...options, env: { XDG_CONFIG_HOME: this.configHome, ...options.env } });
  }

  /** Runs a command that must succeed; its stdout. */
  async ok(args: readonly string[], options: CliOptions = {}): Promise<string> {
    const result = await this.run(args, options);
    if (result.code !== 0) throw new Error(describeCli(args, result));
    return result.stdout;
  }

  /** Runs a command with --json that must succeed; its stdout, parsed. */
  async json<T = any>(args: readonly string[], options: CliOptions = {}): Promise<T> {
    const stdout = await this.ok([...args, '--json'], options);
    try {
      return JSON.parse(stdout) as T;
    } catch (error) {
      throw new Error(`s3gw ${args.join(' ')} --json printed no JSON:\n${stdout}`, { cause: error });
    }
  }

  profilePath(profile = 'default'): string {
    return path.join(this.configHome, 's3gw', 'profiles', `${profile}.json`);
  }

  readProfile(profile = 'default'): any {
    return JSON.parse(readFileSync(this.profilePath(profile), 'utf8'));
  }

  writeProfile(contents: unknown, profile = 'default'): void {
    writeFileSync(this.profilePath(profile), JSON.stringify(contents));
  }

  remove(): void {
    rmSync(this.configHome, { recursive: true, force: true });
  }
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // A profile chosen in the environment of whoever runs the tests must not leak in.
    const { S3GW_PROFILE: _chosen, ...inherited } = process.env;
    const env: NodeJS.ProcessEnv = { ...inherited, ...options.env };
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
      cwd: REPOSITORY,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

export function describeCli(args: readonly string[], result: CliResult): string {
  return `s3gw ${args.join(' ')} → exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}
