/**
 * A production install as the Docker image makes it, without Docker: the runtime stage's files
 * (the compiled build, package.json, config/, openapi/…) in a directory outside the repository, and
 * node_modules from the dependencies stage's own command (`npm ci --omit=dev …`). The gateway must
 * start there in production mode with no TypeScript loader and no devDependency: the repository's
 * node_modules are out of reach, so anything run time imports from them would fail the start.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../support/control-plane.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { buildGateway } from '../support/gateway-process.js';
import { startRecordingBackend, type RecordingBackend } from '../support/s3/recording-backend.js';
import {
  copiesOf,
  envOf,
  execForm,
  parseDockerfile,
  workdirOf,
  type Stage,
} from '../unit/deploy/support/dockerfile.js';
import { repoPath } from '../unit/deploy/support/compose.js';

const dockerfile = parseDockerfile(readFileSync(repoPath('Dockerfile'), 'utf8'));
const packageVersion = (JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { version: string })
  .version;
const runtime = dockerfile.stages.at(-1) as Stage;
const stageNamed = (name: string): Stage => {
  const stage = dockerfile.stages.find((candidate) => candidate.name === name);
  if (stage === undefined) throw new Error(`the Dockerfile has no stage ${name}`);
  return stage;
};

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * npm's environment without what the outer `npm test` left in it (npm_package_*, npm_lifecycle_*,
 * npm_config_* of this checkout), which would make the inner npm act on the repository. A cached
 * tarball is used without asking the registry: the checkout's own `npm ci` filled the cache.
 */
function npmEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) && !/^npm_config_(cache|registry|userconfig)$/i.test(name)) continue;
    if (name === 'INIT_CWD' || name === 'NODE_OPTIONS' || name === 'NODE_PATH') continue;
    env[name] = value;
  }
  return { ...env, npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' };
}

/** The RUN commands of a stage, as `sh -c` would run them. */
function runCommands(stage: Stage): string[] {
  return stage.instructions.filter((item) => item.keyword === 'RUN').map((item) => item.args);
}

/** Runs the dependencies stage in `dir`: its context files, then its commands (`npm ci --omit=dev …`). */
async function runDependenciesStage(stage: Stage, dir: string): Promise<void> {
  for (const copy of copiesOf(stage)) {
    if (copy.from !== null) throw new Error(`the dependencies stage copies from ${copy.from}`);
    for (const source of copy.sources) cpSync(repoPath(source), path.join(dir, path.basename(source)));
  }
  for (const command of runCommands(stage)) {
    expect(command, 'the dependencies stage runs npm only').toMatch(/^npm /);
    const result = await run('sh', ['-c', command], dir, npmEnvironment());
    if (result.code !== 0)
      throw new Error(`\`${command}\` failed (${result.code}): ${result.stderr.slice(-3000)}`);
  }
}

/**
 * Fills `app` as the runtime stage fills its WORKDIR: COPYs from the build context, the compiled
 * build in place of the build stage's dist, node_modules from the dependencies stage.
 */
async function assembleRuntime(app: string, build: string, scratch: string): Promise<void> {
  const workdir = workdirOf(runtime);
  const stagesRun = new Map<string, string>();
  for (const copy of copiesOf(runtime)) {
    const target = path.join(app, path.posix.relative(workdir, copy.destination));
    for (const source of copy.sources) {
      if (copy.from === null) {
        const into = copy.intoDirectory ? path.join(target, path.basename(source)) : target;
        mkdirSync(path.dirname(into), { recursive: true });
        cpSync(repoPath(source), into, { recursive: true });
        continue;
      }
      const stage = stageNamed(copy.from);
      const produced = path.posix.relative(workdirOf(stage), source);
      if (runCommands(stage).some((command) => command.includes('npm run build'))) {
        expect(produced, 'the runtime stage takes the compiled build from the build stage').toBe('dist');
        cpSync(build, target, { recursive: true });
        continue;
      }
      let dir = stagesRun.get(copy.from);
      if (dir === undefined) {
        dir = path.join(scratch, copy.from);
        mkdirSync(dir, { recursive: true });
        await runDependenciesStage(stage, dir);
        stagesRun.set(copy.from, dir);
      }
      cpSync(path.join(dir, produced), target, { recursive: true });
    }
  }
}

const scratch = mkdtempSync(path.join(tmpdir(), 'gw-production-install-'));
const app = path.join(scratch, 'app');
let database: TestDatabase;
let backend: RecordingBackend;

beforeAll(async () => {
  const [entry] = await Promise.all([
    buildGateway('.test-dist-production'),
    createTestDatabase().then((created) => (database = created)),
    startRecordingBackend().then((started) => (backend = started)),
  ]);
  mkdirSync(app);
  await assembleRuntime(app, path.dirname(entry), scratch);
}, 300_000);

afterAll(async () => {
  await database?.drop();
  await backend?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The image's command and environment, with loopback ports and this test's database and store. */
function productionStart(extraArgs: string[] = []) {
  const [command, ...args] = execForm(
    runtime.instructions.filter((item) => item.keyword === 'CMD').at(-1)?.args ?? '',
  );
  expect(command).toBe('node');
  const env: NodeJS.ProcessEnv = {
    // Only the system's programs: no node_modules/.bin, no TypeScript loader in NODE_OPTIONS.
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: scratch,
    ...envOf(runtime),
    GATEWAY_S3_LISTEN: '127.0.0.1:0',
    GATEWAY_CONTROL_LISTEN: '127.0.0.1:0',
    GATEWAY_METRICS_LISTEN: '127.0.0.1:0',
    GATEWAY_DATA_DIR: path.join(scratch, 'data'),
    GATEWAY_WORKERS: '1',
    DATABASE_URL: database.url,
    ...backend.env,
    GATEWAY_MASTER_KEY: randomBytes(32).toString('hex'),
    GATEWAY_JWT_SECRET: randomBytes(32).toString('base64'),
  };
  // The Node running this test stands for the host's Node 24; it is not inside the install.
  return { command: process.execPath, args: [...extraArgs, ...args], env };
}

describe('a production install (npm ci --omit=dev, compiled build, as the Docker image has it)', () => {
  it('holds neither a TypeScript loader nor the node package of the devDependencies', () => {
    expect(existsSync(path.join(app, 'dist', 'main.js'))).toBe(true);
    expect(existsSync(path.join(app, 'node_modules', 'postgres'))).toBe(true);
    for (const devOnly of ['tsx', 'node', 'vitest', 'eslint'])
      expect(existsSync(path.join(app, 'node_modules', devOnly)), devOnly).toBe(false);
    expect(path.relative(repoPath(), app).startsWith('..'), 'outside the repository').toBe(true);
  });

  it('starts in production mode and serves the control plane and the storage endpoint', async () => {
    const { command, args, env } = productionStart();
    const child = spawn(command, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const started = await new Promise<Record<string, string>>((resolve, reject) => {
        let pending = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          pending += chunk;
          const lines = pending.split('\n');
          pending = lines.pop() ?? '';
          for (const line of lines) {
            if (!line.startsWith('{')) continue;
            const parsed = JSON.parse(line) as Record<string, string>;
            if (parsed.msg?.startsWith('gateway started')) resolve(parsed);
          }
        });
        void exited.then((code) => reject(new Error(`the gateway exited (${code}): ${stderr.slice(-3000)}`)));
      });
      expect(started.mode).toBe('production');

      const control = new ControlClient(started.control as string);
      const health = await control.get('/v1/health');
      expect(health.status, health.text).toBe(200);
      expect((await fetch(`${started.control}/docs/`)).status).toBe(200);

      const written = JSON.parse(
        readFileSync(path.join(env.GATEWAY_DATA_DIR as string, 'first-start-credentials.json'), 'utf8'),
      ) as {
        admin: { email: string; password: string };
        storageCredential: { accessKeyId: string; secretAccessKey: string };
      };
      const login = await control.post('/v1/auth/login', {
        email: written.admin.email,
        password: written.admin.password,
      });
      expect(login.status).toBe(200);

      const s3 = new S3Client({
        endpoint: started.s3,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: written.storageCredential,
      });
      const listed = await s3.send(new ListBucketsCommand({}));
      expect(listed.$metadata.httpStatusCode).toBe(200);
      s3.destroy();
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('runs the admin command line: npx s3gw starts the compiled dist/cli/main.js', async () => {
    expect(existsSync(path.join(app, 'src')), 'no source in the install').toBe(false);
    // The install's own npx and node (the host's Node 24 stands for the image's); --no: never the registry.
    const env = {
      ...npmEnvironment(),
      PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: scratch,
    };
    const version = await run('npx', ['--no', '--', 's3gw', '--version'], app, env);
    expect([version.code, version.stdout], version.stderr).toEqual([0, `${packageVersion}\n`]);
    const help = await run('npx', ['--no', '--', 's3gw', 'credentials', 'create', '--help'], app, env);
    expect(help.stdout).toContain('--print <format>');
  });

  it('refuses an older Node with a message naming the release it needs, before loading anything', async () => {
    // What a host whose own node is older sees: the install has no node package to fall back on.
    const olderNode = 'data:text/javascript,Object.defineProperty(process,"version",{value:"v20.20.2"})';
    const { command, args } = productionStart(['--import', olderNode]);
    // Without the check this would start, or stop at the missing production settings (exit 2).
    const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: scratch, ...envOf(runtime) };
    const result = await run(command, args, app, env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'gateway failed to start: this is Node v20.20.2; the gateway needs Node 24 (package.json engines: ">=24 <25"). ' +
        'Install Node 24 on this host or run the Docker image: a production install (npm ci --omit=dev) ' +
        'runs on the host\'s node, not on the "node" package npm scripts use in a checkout.\n',
    );
  });
});
