import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseListenAddress } from '../../../src/config/addresses.js';
import { LIVENESS_PATH } from '../../../src/s3/answers/liveness.js';
import { repoPath } from './support/compose.js';
import {
  copiesOf,
  envOf,
  execForm,
  parseDockerfile,
  workdirOf,
  type Copy,
  type Stage,
} from './support/dockerfile.js';
import { moduleRelativeFiles, variablesTheGatewayReads } from './support/source.js';

const run = promisify(execFile);
const dockerfile = parseDockerfile(readFileSync(repoPath('Dockerfile'), 'utf8'));
const runtime = dockerfile.stages.at(-1) as Stage;
const packageJson = JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};
const buildConfig = JSON.parse(readFileSync(repoPath('tsconfig.build.json'), 'utf8')) as {
  compilerOptions: { rootDir: string; outDir: string };
};

function instructions(stage: Stage, keyword: string): string[] {
  return stage.instructions.filter((item) => item.keyword === keyword).map((item) => item.args);
}

/** Where tsc puts the compiled module of a source file, inside the image's WORKDIR. */
function compiledPath(sourceFile: string): string {
  const relative = path.posix
    .relative(buildConfig.compilerOptions.rootDir, sourceFile)
    .replace(/\.ts$/, '.js');
  return path.posix.join(workdirOf(runtime), buildConfig.compilerOptions.outDir, relative);
}

/** The image paths a COPY of the runtime stage fills: a directory (its contents) or a single file. */
function copiedPaths(copy: Copy): Array<{ imagePath: string; source: string; directory: boolean }> {
  return copy.sources.map((source) => {
    const directory = copy.from !== null || statSync(repoPath(source)).isDirectory();
    const imagePath =
      directory || !copy.intoDirectory
        ? copy.destination
        : `${copy.destination}/${path.posix.basename(source)}`;
    return { imagePath, source, directory };
  });
}

/**
 * Which repository path ends up at an image path of the runtime stage: through a COPY from the build
 * context, or through a COPY of the build stage's compiled output (then only .js compiled from .ts).
 */
function repositorySourceOf(imagePath: string): { path: string; compiled: boolean } | null {
  const outDir = path.posix.join(workdirOf(runtime), buildConfig.compilerOptions.outDir);
  const candidates = copiesOf(runtime)
    .flatMap((copy) => copiedPaths(copy).map((copied) => ({ ...copied, from: copy.from })))
    .filter(({ imagePath: target, directory }) =>
      directory ? imagePath === target || imagePath.startsWith(`${target}/`) : imagePath === target,
    )
    .sort((a, b) => b.imagePath.length - a.imagePath.length);
  const copied = candidates[0];
  if (copied === undefined) return null;
  const rest = path.posix.relative(copied.imagePath, imagePath);
  if (copied.from === null) return { path: path.posix.join(copied.source, rest), compiled: false };
  if (path.posix.resolve('/', copied.source) !== outDir) return null;
  return {
    path: path.posix.join(buildConfig.compilerOptions.rootDir, rest).replace(/\.js$/, '.ts'),
    compiled: true,
  };
}

describe('Dockerfile', () => {
  it('is a multi-stage build on the Node release the project pins', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    const pinned = packageJson.devDependencies.node ?? '';
    const nvmrc = readFileSync(repoPath('.nvmrc'), 'utf8').trim();
    for (const stage of dockerfile.stages) {
      const match = /^node:(\d+)(?:\.(\d+)\.(\d+))?(-[a-z0-9-]+)?$/.exec(stage.base);
      expect(match, stage.base).not.toBeNull();
      expect(match?.[1], stage.base).toBe('24');
      expect(match?.[1]).toBe(nvmrc);
      if (match?.[2] !== undefined) expect(`${match[1]}.${match[2]}.${match[3]}`).toBe(pinned);
    }
    expect(runtime.base).toMatch(/-(slim|alpine)/);
  });

  it('compiles with the full toolchain and ships production dependencies only', () => {
    const build = dockerfile.stages.find((stage) =>
      instructions(stage, 'RUN').some((cmd) => cmd.includes('npm run build')),
    );
    expect(build, 'no stage runs npm run build').toBeDefined();
    expect(instructions(build as Stage, 'RUN').some((cmd) => /npm ci(?!.*--omit=dev)/.test(cmd))).toBe(true);
    expect(packageJson.scripts.build).toBe('node scripts/build.mjs');
    expect(readFileSync(repoPath('scripts/build.mjs'), 'utf8')).toContain("'tsconfig.build.json'");

    const copies = copiesOf(runtime);
    const modules = copies.find(
      (copy) => copy.destination === path.posix.join(workdirOf(runtime), 'node_modules'),
    );
    const depsStage = dockerfile.stages.find((stage) => stage.name === modules?.from);
    expect(depsStage, 'node_modules must come from a dependencies stage').toBeDefined();
    expect(instructions(depsStage as Stage, 'RUN').some((cmd) => /npm ci .*--omit=dev/.test(cmd))).toBe(true);
    expect(
      copies.some(
        (copy) => copy.from === build?.name && copy.sources.includes(`${workdirOf(build as Stage)}/dist`),
      ),
    ).toBe(true);
  });

  it('runs the compiled entry point as an unprivileged user', () => {
    const users = instructions(runtime, 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(['root', '0', '0:0']).not.toContain(users.at(-1));
    const cmd = execForm(instructions(runtime, 'CMD').at(-1) ?? '');
    expect(cmd[0]).toBe('node');
    expect(cmd[1] && path.posix.resolve(workdirOf(runtime), cmd[1])).toBe(compiledPath('src/main.ts'));
    expect(packageJson.scripts.start).toContain('src/main.ts');
    const source = repositorySourceOf(compiledPath('src/main.ts'));
    expect(source).toEqual({ path: 'src/main.ts', compiled: true });
  });

  it('contains every file the compiled code opens next to itself (migrations, config, package.json)', () => {
    const references = moduleRelativeFiles();
    expect(references.map((reference) => reference.relative)).toEqual(
      expect.arrayContaining(['./migrations/', '../../config/default.json', '../package.json']),
    );
    for (const { module, relative } of references) {
      const imagePath = path.posix.resolve(path.posix.dirname(compiledPath(module)), relative);
      const source = repositorySourceOf(imagePath);
      expect(source, `${module} opens ${imagePath}, which the image does not contain`).not.toBeNull();
      if (source?.compiled) {
        expect(
          source.path.endsWith('.ts') && existsSync(repoPath(source.path)),
          `${imagePath}: tsc only emits .js`,
        ).toBe(true);
      } else {
        expect(existsSync(repoPath(source?.path ?? '')), `${imagePath} ← ${source?.path}`).toBe(true);
      }
    }
    const migrations = repositorySourceOf(path.posix.join(workdirOf(runtime), 'dist/store/migrations'));
    expect(migrations?.path).toBe('src/store/migrations');
    expect(statSync(repoPath('src/store/migrations')).isDirectory()).toBe(true);
    expect(readdirSync(repoPath('src/store/migrations')).some((file) => file.endsWith('.sql'))).toBe(true);
  });

  it('defaults to production mode, listening on all interfaces on the ports it exposes', () => {
    const env = envOf(runtime);
    expect(env.GATEWAY_MODE).toBe('production');
    const exposed = instructions(runtime, 'EXPOSE').flatMap((args) =>
      args.split(/\s+/).map((port) => Number(port.split('/')[0])),
    );
    for (const name of ['GATEWAY_S3_LISTEN', 'GATEWAY_CONTROL_LISTEN', 'GATEWAY_METRICS_LISTEN']) {
      const { host, port } = parseListenAddress(env[name] ?? '');
      expect(host, name).toBe('0.0.0.0');
      expect(exposed, name).toContain(port);
    }
    const known = variablesTheGatewayReads();
    for (const name of Object.keys(env).filter((key) => key !== 'NODE_ENV'))
      expect(known, name).toContain(name);
  });

  it('keeps local state, secrets and build output out of the build context', () => {
    const ignored = readFileSync(repoPath('.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim().replace(/^\//, '').replace(/\/$/, ''))
      .filter((line) => line !== '' && !line.startsWith('#'));
    for (const entry of ['node_modules', 'data', 'dist', '.git', 'scratch', 'coverage', '.env']) {
      expect(ignored).toContain(entry);
    }
    for (const copy of copiesOf(runtime).filter((item) => item.from === null)) {
      for (const source of copy.sources) expect(ignored, source).not.toContain(source.split('/')[0]);
    }
  });
});

describe('Dockerfile HEALTHCHECK', () => {
  const healthcheck = instructions(runtime, 'HEALTHCHECK').at(-1) ?? '';
  const command = execForm(healthcheck.slice(healthcheck.indexOf('CMD')));
  let server: http.Server | https.Server | null = null;
  let tlsDir = '';
  let tls: { cert: Buffer; key: Buffer };

  beforeAll(async () => {
    tlsDir = mkdtempSync(path.join(tmpdir(), 'healthcheck-tls-'));
    const [certFile, keyFile] = [path.join(tlsDir, 'cert.pem'), path.join(tlsDir, 'key.pem')];
    await run('openssl', [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=*.s3.example.test'],
      ...['-keyout', keyFile, '-out', certFile],
    ]);
    tls = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
  });
  afterAll(() => rmSync(tlsDir, { recursive: true, force: true }));

  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = null;
  });

  interface ProbeOptions {
    /** How the fake gateway listens: plain HTTP (default) or HTTPS with a self-signed certificate. */
    serve?: 'http' | 'https';
    /** Extra environment of the container (e.g. the TLS settings). */
    env?: Record<string, string>;
  }

  /** Runs the HEALTHCHECK command against a fake storage listener answering `status` (null: none). */
  async function probe(
    status: number | null,
    options: ProbeOptions = {},
  ): Promise<{ code: number; paths: string[] }> {
    const paths: string[] = [];
    let port = 1;
    if (status !== null) {
      const listener: http.RequestListener = (request, response) => {
        paths.push(request.url ?? '');
        response.writeHead(status).end();
      };
      server = options.serve === 'https' ? https.createServer(tls, listener) : http.createServer(listener);
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    }
    expect(command[0]).toBe('node');
    const env: NodeJS.ProcessEnv = { ...process.env, GATEWAY_S3_LISTEN: `0.0.0.0:${port}`, ...options.env };
    delete env.GATEWAY_CONTROL_LISTEN;
    if (options.env?.GATEWAY_S3_TLS_CERT_FILE === undefined) {
      delete env.GATEWAY_S3_TLS_CERT_FILE;
      delete env.GATEWAY_S3_TLS_KEY_FILE;
    }
    try {
      await run(process.execPath, command.slice(1), { env, timeout: 10_000 });
      return { code: 0, paths };
    } catch (error) {
      return { code: (error as { code?: number }).code ?? -1, paths };
    }
  }

  const tlsEnv = () => ({
    GATEWAY_S3_TLS_CERT_FILE: path.join(tlsDir, 'cert.pem'),
    GATEWAY_S3_TLS_KEY_FILE: path.join(tlsDir, 'key.pem'),
  });

  it("asks the storage listener's liveness probe, not readiness (/v1/health needs the database and the backend)", async () => {
    expect(LIVENESS_PATH).toBe('/_gateway/live');
    expect(await probe(200)).toEqual({ code: 0, paths: [LIVENESS_PATH] });
    expect(command.join(' ')).not.toContain('/v1/health');
    expect(command.join(' ')).not.toContain('GATEWAY_CONTROL_LISTEN');
  });

  it('fails when the liveness probe answers anything but 200, or nothing', async () => {
    expect((await probe(503)).code).toBe(1);
    expect((await probe(500)).code).toBe(1);
    expect((await probe(null)).code).toBe(1);
  });

  it('follows the port of GATEWAY_S3_LISTEN', async () => {
    const result = await probe(200, { env: {} });
    expect(result.code).toBe(0);
    const port = (server?.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    server = null;
    const elsewhere = await run(process.execPath, command.slice(1), {
      env: { ...process.env, GATEWAY_S3_LISTEN: `127.0.0.1:${port === 65535 ? 65534 : port + 1}` },
      timeout: 10_000,
    }).then(
      () => 0,
      (error: { code?: number }) => error.code ?? -1,
    );
    expect(elsewhere).toBe(1);
  });

  it('speaks HTTPS when the storage endpoint is configured for TLS (self-signed or wildcard certificates included)', async () => {
    expect(await probe(200, { serve: 'https', env: tlsEnv() })).toEqual({ code: 0, paths: [LIVENESS_PATH] });
    expect((await probe(503, { serve: 'https', env: tlsEnv() })).code).toBe(1);
  });

  it('uses plain HTTP without the TLS settings, and HTTPS only with both of them', async () => {
    expect((await probe(200, { serve: 'http', env: tlsEnv() })).code).toBe(1);
    expect((await probe(200, { serve: 'https' })).code).toBe(1);
    const certOnly = { GATEWAY_S3_TLS_CERT_FILE: tlsEnv().GATEWAY_S3_TLS_CERT_FILE };
    expect((await probe(200, { serve: 'http', env: certOnly })).code).toBe(0);
  });
});
