/**
 * `docker compose exec gateway npx s3gw …`: the image has what `npx s3gw` needs (package.json's
 * "bin", bin/s3gw.js and the compiled dist/cli/), and bin/s3gw.js runs the compiled CLI where,
 * as in the image, there is no TypeScript source.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { repoPath } from './support/compose.js';
import { copiesOf, parseDockerfile, workdirOf, type Stage } from './support/dockerfile.js';

const run = promisify(execFile);
const dockerfile = parseDockerfile(readFileSync(repoPath('Dockerfile'), 'utf8'));
const runtime = dockerfile.stages.at(-1) as Stage;
const app = workdirOf(runtime);
const packageJson = JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as {
  bin: Record<string, string>;
};
const buildConfig = JSON.parse(readFileSync(repoPath('tsconfig.build.json'), 'utf8')) as {
  compilerOptions: { rootDir: string; outDir: string };
  include: string[];
};

let scratch: string | null = null;
afterEach(() => {
  if (scratch !== null) rmSync(scratch, { recursive: true, force: true });
  scratch = null;
});

describe('the container image', () => {
  it('holds package.json with the s3gw bin, bin/s3gw.js and the compiled CLI, and no TypeScript source', () => {
    expect(packageJson.bin).toEqual({ s3gw: 'bin/s3gw.js' });
    const fromContext = copiesOf(runtime).filter((copy) => copy.from === null);
    const copied = (source: string, destination: string) =>
      fromContext.some(
        (copy) =>
          copy.sources.includes(source) &&
          (copy.destination === destination ||
            (copy.intoDirectory && copy.destination === path.posix.dirname(destination))),
      );
    expect(copied('package.json', `${app}/package.json`), 'COPY package.json').toBe(true);
    expect(copied('bin', `${app}/bin`), 'COPY bin ./bin').toBe(true);
    const ignored = readFileSync(repoPath('.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).not.toContain('bin');

    // dist/cli/main.js: the build stage compiles src/ (src/cli/main.ts among it) to dist/, which
    // the runtime stage copies whole.
    expect(buildConfig.include).toContain(buildConfig.compilerOptions.rootDir);
    expect(path.posix.relative(buildConfig.compilerOptions.rootDir, 'src/cli/main.ts')).toBe('cli/main.ts');
    const build = dockerfile.stages.find((stage) =>
      stage.instructions.some((item) => item.keyword === 'RUN' && item.args.includes('npm run build')),
    ) as Stage;
    expect(
      copiesOf(runtime).some(
        (copy) =>
          copy.from === build.name &&
          copy.sources.includes(`${workdirOf(build)}/${buildConfig.compilerOptions.outDir}`) &&
          copy.destination === `${app}/${buildConfig.compilerOptions.outDir}`,
      ),
    ).toBe(true);
    expect(readFileSync(repoPath('bin/s3gw.js'), 'utf8')).toContain("'../dist/cli/main.js'");

    // Without the source, bin/s3gw.js does not look for tsx (a development dependency).
    expect(
      copiesOf(runtime).filter((copy) => copy.destination === `${app}/src` || copy.sources.includes('src')),
    ).toEqual([]);
  });
});

describe('bin/s3gw.js', () => {
  /** An install laid out like the image: package.json, bin/s3gw.js, and a stand-in for dist/cli/main.js. */
  function imageLayout(withBuild: boolean): string {
    scratch = mkdtempSync(path.join(tmpdir(), 's3gw-image-'));
    writeFileSync(
      path.join(scratch, 'package.json'),
      JSON.stringify({ type: 'module', bin: packageJson.bin }),
    );
    mkdirSync(path.join(scratch, 'bin'));
    copyFileSync(repoPath('bin/s3gw.js'), path.join(scratch, 'bin', 's3gw.js'));
    if (withBuild) {
      mkdirSync(path.join(scratch, 'dist', 'cli'), { recursive: true });
      writeFileSync(
        path.join(scratch, 'dist', 'cli', 'main.js'),
        "process.stdout.write(`compiled s3gw ${process.argv.slice(2).join(' ')}\\n`);\n",
      );
    }
    return scratch;
  }

  it('runs the compiled CLI when there is no source, with the arguments given', async () => {
    const root = imageLayout(true);
    const { stdout } = await run(process.execPath, [path.join(root, 'bin', 's3gw.js'), 'whoami', '--json'], {
      cwd: root,
    });
    expect(stdout).toBe('compiled s3gw whoami --json\n');
  });

  it('says what to do, with exit code 2, when there is neither source nor build', async () => {
    const root = imageLayout(false);
    const failed = await run(process.execPath, [path.join(root, 'bin', 's3gw.js'), '--version'], {
      cwd: root,
    }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect([failed?.code, failed?.stderr]).toEqual([
      2,
      's3gw: neither the source with tsx nor a build was found: run `npm run build`\n',
    ]);
  });
});
