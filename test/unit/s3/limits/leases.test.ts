import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../src/observability/logger.js';
import { LeaseBook } from '../../../../src/s3/limits/leases.js';
import type { StorageLeases } from '../../../../src/store/storage-leases.js';
import type { ScopeQuota, StorageChange } from '../../../../src/store/usage-scopes.js';

const QUOTAS: ScopeQuota[] = [{ scope: 'bucket:photos', maxBytes: 2 ** 40, maxObjects: null }];

/** The database's side of leases: grants what `grants` says in turn, and notes what comes back. */
function fakeLeases(grants: StorageChange[]) {
  const taken: string[] = [];
  const givenBack: { id: string; room: StorageChange }[] = [];
  let release: () => void = () => undefined;
  const store = {
    take: vi.fn(async (_instance: string, id: string) => {
      taken.push(id);
      const grant = grants.shift() ?? { bytes: 0, objects: 0 };
      await new Promise<void>((resolve) => (release = resolve));
      return grant;
    }),
    giveBack: vi.fn((id: string, room: StorageChange) => {
      givenBack.push({ id, room });
      return Promise.resolve();
    }),
  };
  return {
    store: store as unknown as StorageLeases,
    taken,
    givenBack,
    /** Lets the request for room under way answer; resolves once the book took the answer. */
    answer: async () => {
      release();
      await vi.advanceTimersByTimeAsync(0);
    },
  };
}

/** A book whose first lease (of `grants[0]`) was asked for by an upload and granted. */
async function bookWithLease(grants: StorageChange[]) {
  const leases = fakeLeases(grants);
  const book = new LeaseBook(leases.store, 'instance', createLogger('silent'));
  book.reached();
  book.admit(QUOTAS, 'photos', 1);
  await leases.answer();
  return { leases, book };
}

const LOWERED: ScopeQuota[] = [{ scope: 'bucket:photos', maxBytes: 50_000, maxObjects: null }];

/**
 * A book whose first lease admitted an upload (`old`, not recorded yet) before the bucket's quota
 * was lowered: that lease is retired, and a second one (of `second`) granted under the new quota.
 */
async function bookWithRetiredLease(second: StorageChange) {
  const { leases, book } = await bookWithLease([{ bytes: 10_000, objects: 100 }, second]);
  const old = book.admit(QUOTAS, 'photos', 1_000);
  expect(book.admit(LOWERED, 'photos', 1_000)).toBeNull();
  await leases.answer();
  return { leases, book, old };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['performance', 'setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the room a process leases', () => {
  it('admits uploads that fit what the lease has left, and asks for more once half is used', async () => {
    const leases = fakeLeases([
      { bytes: 10_000, objects: 100 },
      { bytes: 10_000, objects: 100 },
    ]);
    const book = new LeaseBook(leases.store, 'instance', createLogger('silent'));
    book.reached();

    // No lease yet: the exact path, while the first is asked for.
    expect(book.admit(QUOTAS, 'photos', 100)).toBeNull();
    await leases.answer();
    const first = book.admit(QUOTAS, 'photos', 4_000);
    expect(first).toMatchObject({ scopes: ['bucket:photos'] });
    expect(leases.taken).toHaveLength(1);
    // 2,000 left of 10,000: more is asked for, and what is left is still admitted meanwhile.
    expect(book.admit(QUOTAS, 'photos', 4_000)).not.toBeNull();
    expect(leases.taken).toHaveLength(2);
    expect(book.admit(QUOTAS, 'photos', 2_001)).toBeNull();
    await leases.answer();
    expect(book.admit(QUOTAS, 'photos', 2_001)).not.toBeNull();
    expect(new Set(leases.taken)).toEqual(new Set([first?.id]));
    expect(book.ids()).toEqual([first?.id]);
  });

  it('gives back an admission whose upload was never sent', async () => {
    const { book } = await bookWithLease([{ bytes: 1_000, objects: 10 }]);
    const admission = book.admit(QUOTAS, 'photos', 1_000);
    expect(admission).not.toBeNull();
    expect(book.admit(QUOTAS, 'photos', 1_000)).toBeNull();
    if (admission !== null) book.unadmit(admission, 1_000);
    expect(book.admit(QUOTAS, 'photos', 1_000)).not.toBeNull();
  });

  it('lets a retired lease go once an upload it admitted is given up unsent', async () => {
    const { book, old } = await bookWithRetiredLease({ bytes: 10_000, objects: 100 });
    expect(book.retired()).toEqual([]);
    if (old !== null) book.unadmit(old, 1_000);
    expect(book.retired()).toEqual([old?.id]);
    // The retired lease admits nothing more: a new one is taken under the old quotas.
    expect(book.admit(QUOTAS, 'photos', 1_000)?.id).not.toBe(old?.id);
  });

  it('gives what is left back when the scopes refuse more (near the quota), and asks again only later', async () => {
    const { leases, book } = await bookWithLease([{ bytes: 10_000, objects: 100 }]);
    const admission = book.admit(QUOTAS, 'photos', 6_000);
    // Under half left: asked for more, and refused.
    await leases.answer();
    expect(leases.givenBack).toEqual([{ id: admission?.id, room: { bytes: 4_000, objects: 99 } }]);
    expect(book.admit(QUOTAS, 'photos', 1)).toBeNull();
    expect(leases.taken).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1_001);
    book.reached();
    expect(book.admit(QUOTAS, 'photos', 1)).toBeNull();
    expect(leases.taken).toHaveLength(3);
  });

  it('starts a new lease when the quotas change, and lets the old one go once its uploads are recorded', async () => {
    const { book, old } = await bookWithRetiredLease({ bytes: 5_000, objects: 100 });
    const fresh = book.admit(LOWERED, 'photos', 1_000);
    expect(fresh?.id).not.toBe(old?.id);
    expect(new Set(book.ids())).toEqual(new Set([old?.id, fresh?.id]));
    // Its upload is not recorded yet: the old lease's row still holds that upload's room.
    expect(book.retired()).toEqual([]);
    if (old !== null) book.recorded(old);
    expect(book.retired()).toEqual([old?.id]);
    book.forget([old?.id as string]);
    expect(book.ids()).toEqual([fresh?.id]);
  });

  it('keeps its lease when the cache renews the quotas with an equal list', async () => {
    const { leases, book } = await bookWithLease([{ bytes: 10_000, objects: 100 }]);
    const before = book.admit(QUOTAS, 'photos', 1_000);
    // The renewed list counts the reads of its quotas: compared once, then taken as the lease's own.
    let reads = 0;
    const renewed = QUOTAS.map(
      (quota) =>
        new Proxy(
          { ...quota },
          {
            get: (target, property, receiver) => {
              reads += 1;
              return Reflect.get(target, property, receiver) as unknown;
            },
          },
        ),
    );
    const after = book.admit(renewed, 'photos', 1_000);
    reads = 0;
    const later = [book.admit(renewed, 'photos', 1_000), book.admit(renewed, 'photos', 1_000)];

    expect(before).not.toBeNull();
    expect(after?.id).toBe(before?.id);
    expect(later.map((admission) => admission?.id)).toEqual([before?.id, before?.id]);
    expect(reads).toBe(0);
    expect(book.ids()).toEqual([before?.id]);
    expect(book.retired()).toEqual([]);
    expect(leases.taken).toHaveLength(1);
  });

  it('admits nothing while the database has not answered lately, nor after close', async () => {
    const leases = fakeLeases([
      { bytes: 10_000, objects: 100 },
      { bytes: 10_000, objects: 100 },
    ]);
    const book = new LeaseBook(leases.store, 'instance', createLogger('silent'));
    expect(book.admit(QUOTAS, 'photos', 1)).toBeNull();
    expect(leases.taken).toEqual([]);

    book.reached();
    book.admit(QUOTAS, 'photos', 1);
    await leases.answer();
    expect(book.admit(QUOTAS, 'photos', 1)).not.toBeNull();
    // Ten seconds without an answer: the lease may have been released by the others.
    await vi.advanceTimersByTimeAsync(10_001);
    expect(book.admit(QUOTAS, 'photos', 1)).toBeNull();
    expect(book.retired()).toEqual([]);

    book.reached();
    book.admit(QUOTAS, 'photos', 1);
    await leases.answer();
    expect(book.admit(QUOTAS, 'photos', 1)).not.toBeNull();
    book.close();
    expect(book.admit(QUOTAS, 'photos', 1)).toBeNull();
  });

  it('retires a lease nothing was admitted from for half a minute, once its uploads are recorded', async () => {
    const { leases, book } = await bookWithLease([{ bytes: 10_000, objects: 100 }]);
    const admission = book.admit(QUOTAS, 'photos', 1_000);
    await vi.advanceTimersByTimeAsync(30_001);
    book.reached();
    book.retireIdle();
    expect(book.retired()).toEqual([]);
    if (admission !== null) book.recorded(admission);
    book.retireIdle();
    expect(book.retired()).toEqual([admission?.id]);
    // A new upload starts a new lease.
    expect(book.admit(QUOTAS, 'photos', 1)).toBeNull();
    expect(leases.taken).toHaveLength(2);
  });
});
