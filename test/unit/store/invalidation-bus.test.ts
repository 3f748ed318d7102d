import { describe, expect, it } from 'vitest';
import type { Sql } from '../../../src/store/database.js';
import { InvalidationBus, type Invalidation } from '../../../src/store/invalidation.js';

describe('InvalidationBus.publish after a commit', () => {
  it('delivers locally and never rejects when telling the peers fails, reporting the failure instead', async () => {
    const failingSql = (() => Promise.reject(new Error('connection lost'))) as unknown as Sql;
    const failures: [string, Invalidation][] = [];
    const bus = new InvalidationBus(failingSql, {
      notifyPeers: true,
      onNotifyError: (error, invalidation) => failures.push([String(error), invalidation]),
    });
    const delivered: Invalidation[] = [];
    bus.subscribe((invalidation) => delivered.push(invalidation));
    await expect(bus.publish('credential', 'GWK1EXAMPLE')).resolves.toBeUndefined();
    expect(delivered).toEqual([{ kind: 'credential', key: 'GWK1EXAMPLE' }]);
    expect(failures).toEqual([['Error: connection lost', { kind: 'credential', key: 'GWK1EXAMPLE' }]]);
  });
});
