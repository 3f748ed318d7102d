/**
 * The gateway's entry point (`node dist/main.js`, `npm start`). It checks the Node release first,
 * with nothing but node:fs loaded, because the gateway's dependencies fail obscurely on an older one.
 */
import { readFileSync } from 'node:fs';
import { nodeVersionProblem } from './node-version.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines?: { node?: string };
};
const problem = nodeVersionProblem(process.version, pkg.engines?.node ?? '');
if (problem !== null) {
  process.stderr.write(`gateway failed to start: ${problem}\n`);
  process.exit(1);
}
await import('./start.js');
