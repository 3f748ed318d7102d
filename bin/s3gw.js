#!/usr/bin/env node
// `npx s3gw`: the gateway's command line (src/cli/). In a checkout it runs the TypeScript source
// through tsx, so it never runs a dist/ left over from an older build; where there is no source or
// no tsx (the container image, an `npm ci --omit=dev` install), it runs the build in dist/.
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

const source = new URL('../src/cli/main.ts', import.meta.url);
const built = new URL('../dist/cli/main.js', import.meta.url);

async function typeScriptLoader() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return null;
  }
}

const loader = existsSync(source) ? await typeScriptLoader() : null;
if (loader !== null) {
  loader.register();
  await import(source.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write('s3gw: neither the source with tsx nor a build was found: run `npm run build`\n');
  process.exitCode = 2;
}
