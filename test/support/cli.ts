/**
 * The admin command line as people run it: `bin/s3gw.js` (what `npx s3gw` starts) in a process of
 * its own, with a configuration directory of its own, so that no real ~/.config/s3gw is read or
 * written.
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  /** The arguments of every command this user ran with --json that succeeded, in order. */
  readonly jsonRuns: string[][] = [];

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
      const parsed = JSON.parse(stdout) as T;
      this.jsonRuns.push([...args]);
      return parsed;
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

/**
 * CI=true (or 1): a client the tests need must be installed, since nobody reads the list of skipped
 * tests (.ci/run installs them before `npm test`).
 */
export function underCi(): boolean {
  return ['true', '1'].includes((process.env.CI ?? '').toLowerCase());
}

/** An S3 client program people use, as installed on this machine. */
export interface InstalledClient {
  /** How the tests name it: the program and its version. */
  label: string;
  path: string;
}

export interface InstalledAwsCli extends InstalledClient {
  /**
   * Whether it reads endpoint_url from a profile and AWS_ENDPOINT_URL: aws-cli v2 from 2.13, v1
   * from botocore 1.31. Older ones (Debian 12's 2.9) need --endpoint-url on every command.
   */
  readsConfiguredEndpoint: boolean;
}

/** Where `name` is found on PATH (as a shell finds it), or null. */
function onPath(name: string): string | null {
  for (const directory of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** `program --version`'s output, or null when it does not run. */
function versionOf(program: string, args = ['--version']): string | null {
  const result = spawnSync(program, args, { encoding: 'utf8', timeout: 60_000 });
  return result.status === 0 ? `${result.stdout}${result.stderr}`.trim() : null;
}

function atLeast(version: string | undefined, minimum: readonly number[]): boolean {
  const parts = (version ?? '').split('.').map(Number);
  for (const [index, wanted] of minimum.entries()) {
    const part = parts[index] ?? 0;
    if (part !== wanted) return part > wanted;
  }
  return true;
}

/** The aws-cli at `program`, or null when there is none that runs. */
export function awsCli(program: string): InstalledAwsCli | null {
  if (!existsSync(program)) return null;
  const version = versionOf(program) ?? '';
  const cli = /aws-cli\/(\S+)/.exec(version)?.[1];
  if (cli === undefined) return null;
  const botocore = /botocore\/(\S+)/.exec(version)?.[1];
  return {
    label: `aws-cli ${cli}${botocore === undefined ? '' : ` (botocore ${botocore})`}`,
    path: program,
    readsConfiguredEndpoint: cli.startsWith('2.') ? atLeast(cli, [2, 13]) : atLeast(botocore, [1, 31]),
  };
}

/**
 * Every aws-cli a person here might run: the one first on PATH (what `aws` starts) and Debian's
 * /usr/bin/aws (what CI installs), once each.
 */
export function installedAwsClis(): InstalledAwsCli[] {
  const found: InstalledAwsCli[] = [];
  for (const candidate of [onPath('aws'), '/usr/bin/aws']) {
    const cli = candidate === null ? null : awsCli(candidate);
    if (cli !== null && !found.some((other) => other.label === cli.label)) found.push(cli);
  }
  return found;
}

/** A client other than aws-cli (rclone, s3cmd) from PATH, or null when it is not installed. */
export function installedClient(name: string): InstalledClient | null {
  const found = onPath(name);
  const version = found === null ? null : versionOf(found);
  if (found === null || version === null) return null;
  return { label: version.split('\n')[0]!, path: found };
}

/** Runs a client to its end with `env` over the test runner's environment, minus any AWS_ settings. */
export function runClient(
  program: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_') && !name.startsWith('RCLONE_')),
    );
    const child = spawn(program, args, { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function describeRun(program: string, args: readonly string[], result: CliResult): string {
  return `${program} ${args.join(' ')} → exit ${result.code}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}
