#!/usr/bin/env node
// npm run build [-- OUT_DIR]: compiles src/ (tsconfig.build.json) into a clean OUT_DIR (default
// dist; a folder directly under the repository, where the compiled modules find ../package.json
// and ../../config/default.json), then copies the files they open next to themselves that tsc
// does not emit (the SQL migrations, the embedded object store's plain-JavaScript child), so
// `node dist/main.js` runs as is. The benchmarks build into a folder of their own this way.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = process.argv[2] ?? 'dist';
if (!/^[\w.-]+$/.test(outDir) || outDir === '.' || outDir === '..' || outDir === 'src') {
  process.stderr.write(
    `build: the output folder must be a plain folder name under the repository, not "${outDir}"\n`,
  );
  process.exit(2);
}
const out = path.join(root, outDir);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const ASSETS = [
  ['src/store/migrations', 'store/migrations'],
  ['src/backend/embedded-s3-child.cjs', 'backend/embedded-s3-child.cjs'],
];

rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', out], {
  cwd: root,
  stdio: 'inherit',
});
for (const [from, to] of ASSETS) cpSync(path.join(root, from), path.join(out, to), { recursive: true });
