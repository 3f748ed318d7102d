import { describe, expect, it } from 'vitest';
import { workerExecArgv } from '../../../src/cluster/supervisor.js';

describe('the V8 flags storage workers start with', () => {
  it('adds the young generation cap and turns allocation-site pretenuring off, after the main process flags', () => {
    expect(workerExecArgv(['--enable-source-maps'], '')).toEqual([
      '--enable-source-maps',
      '--max-semi-space-size=16',
      '--no-allocation-site-pretenuring',
    ]);
  });

  it("keeps the operator's own setting of either flag, from the main process or NODE_OPTIONS", () => {
    expect(workerExecArgv(['--max-semi-space-size=64'], '')).toEqual([
      '--max-semi-space-size=64',
      '--no-allocation-site-pretenuring',
    ]);
    expect(workerExecArgv([], '--allocation-site-pretenuring --max-old-space-size=512')).toEqual([
      '--max-semi-space-size=16',
    ]);
  });

  it('recognises a flag spelled with underscores, as V8 accepts it', () => {
    expect(workerExecArgv(['--allocation_site_pretenuring'], '--max_semi_space_size=8')).toEqual([
      '--allocation_site_pretenuring',
    ]);
  });
});
