import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../src/node-version.js';

const engines = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    engines: { node: string };
  }
).engines.node;

describe('the Node release check at start', () => {
  it("lets the release package.json's engines asks for through, and newer ones", () => {
    expect(nodeVersionProblem('v24.0.0', engines)).toBeNull();
    expect(nodeVersionProblem(process.version, engines)).toBeNull();
    expect(nodeVersionProblem('v26.1.0', engines)).toBeNull();
  });

  it('refuses an older release, naming the one it needs', () => {
    expect(nodeVersionProblem('v22.12.0', '>=24 <25')).toMatch(
      /^this is Node v22\.12\.0; the gateway needs Node 24 \(package\.json engines: ">=24 <25"\)\. Install Node 24 on this host/,
    );
  });

  it('enforces nothing it cannot read', () => {
    expect(nodeVersionProblem('v20.0.0', '')).toBeNull();
    expect(nodeVersionProblem('not a version', '>=24')).toBeNull();
  });
});
