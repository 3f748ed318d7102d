#!/usr/bin/env node
// npm run build: compiles src/ to dist/ (tsconfig.build.json) from a clean folder, then copies the
// files the compiled modules open next to themselves and tsc does not emit (the SQL migrations
// and the embedded object store's plain-JavaScript child), so `node dist/main.js` runs as is.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const ASSETS = [
  ['src/store/migrations', 'dist/store/migrations'],
  ['src/backend/embedded-s3-child.cjs', 'dist/backend/embedded-s3-child.cjs'],
];

rmSync(`${root}dist`, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
for (const [from, to] of ASSETS) cpSync(`${root}${from}`, `${root}${to}`, { recursive: true });
