import { describe, expect, it } from 'vitest';
import { workerExecArgv } from '../../../src/cluster/supervisor.js';

describe('the V8 flags storage workers start with', () => {
  it('adds the young generation cap, no allocation-site pretenuring and external memory in the heap limits, after the main process flags', () => {
    expect(workerExecArgv(['--enable-source-maps'], '')).toEqual([
      '--enable-source-maps',
      '--max-semi-space-size=16',
      '--no-allocation-site-pretenuring',
      '--external-memory-accounted-in-global-limit',
    ]);
  });

  it("keeps the operator's own setting of each flag, from the main process or NODE_OPTIONS", () => {
    expect(workerExecArgv(['--max-semi-space-size=64'], '')).toEqual([
      '--max-semi-space-size=64',
      '--no-allocation-site-pretenuring',
      '--external-memory-accounted-in-global-limit',
    ]);
    expect(workerExecArgv([], '--allocation-site-pretenuring --max-old-space-size=512')).toEqual([
      '--max-semi-space-size=16',
      '--external-memory-accounted-in-global-limit',
    ]);
    expect(workerExecArgv(['--no-external-memory-accounted-in-global-limit'], '')).toEqual([
      '--no-external-memory-accounted-in-global-limit',
      '--max-semi-space-size=16',
      '--no-allocation-site-pretenuring',
    ]);
  });

  it('recognises a flag spelled with underscores, as V8 accepts it', () => {
    expect(
      workerExecArgv(
        ['--allocation_site_pretenuring'],
        '--max_semi_space_size=8 --no_external_memory_accounted_in_global_limit',
      ),
    ).toEqual(['--allocation_site_pretenuring']);
  });
});
