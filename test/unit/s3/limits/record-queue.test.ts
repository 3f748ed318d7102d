import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../src/observability/logger.js';
import { LINGER_MS, RecordQueue } from '../../../../src/s3/limits/record-queue.js';
import type { StorageRecords, WriteRecord } from '../../../../src/store/storage-records.js';

function recordOf(key: string): WriteRecord {
  return {
    bucket: 'photos',
    key,
    scopes: ['bucket:photos'],
    bytes: 10,
    writer: 'w',
    from: 1,
    until: 2,
    leaseId: null,
    leasedBytes: 0,
  };
}

/** The database's side: each statement answers with `answers` in turn (an Error: it fails). */
function fakeRecords(answers: (number[] | Error)[]) {
  const statements: string[][] = [];
  const store = {
    write: vi.fn((records: readonly WriteRecord[]) => {
      statements.push(records.map((record) => record.key));
      const answer = answers.shift() ?? [];
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    }),
  };
  return { store: store as unknown as StorageRecords, statements };
}

/** A database whose statements are answered one by one, when the test says. */
function heldRecords() {
  const statements: string[][] = [];
  const answers: (() => void)[] = [];
  const store = {
    write: (records: readonly WriteRecord[]) => {
      statements.push(records.map((record) => record.key));
      return new Promise<number[]>((resolve) => answers.push(() => resolve([])));
    },
  } as unknown as StorageRecords;
  return { store, statements, answerNext: () => answers.shift()?.() };
}

const quietQueue = (store: StorageRecords) =>
  new RecordQueue<WriteRecord>(store, createLogger('silent'), {
    onDoubt: () => undefined,
    onWritten: () => undefined,
  });

/** Whether `promise` has settled once the timers and microtasks due now have run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await vi.advanceTimersByTimeAsync(0);
  return settled;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the queue of records of uploads from leases', () => {
  it('writes the records added together in one statement, and tells which were doubtful', async () => {
    const records = fakeRecords([[1]]);
    const doubted: string[] = [];
    const written: [number, number][] = [];
    const queue = new RecordQueue<WriteRecord>(records.store, createLogger('silent'), {
      onDoubt: (record) => doubted.push(record.key),
      onWritten: (counted, doubtful) => written.push([counted, doubtful]),
    });
    for (const key of ['a', 'b', 'c']) queue.add(recordOf(key));
    expect(records.statements).toEqual([]);

    await vi.advanceTimersByTimeAsync(LINGER_MS);
    expect(records.statements).toEqual([['a', 'b', 'c']]);
    expect(doubted).toEqual(['b']);
    expect(written).toEqual([[2, 1]]);
  });

  it('keeps several records of one key in their order, in one statement', async () => {
    const records = fakeRecords([]);
    const queue = quietQueue(records.store);
    for (const key of ['a', 'b', 'a', 'a']) queue.add(recordOf(key));
    await queue.flush();
    expect(records.statements).toEqual([['a', 'b', 'a', 'a']]);
  });

  it('sends the records a write of the exact path waits for at once, and lets it go once they are written', async () => {
    const records = heldRecords();
    const queue = quietQueue(records.store);
    queue.add(recordOf('a'));
    queue.add(recordOf('b'));

    const forA = queue.written((record) => record.key === 'a');
    expect(records.statements).toEqual([['a', 'b']]);
    expect(await settledYet(forA)).toBe(false);
    records.answerNext();
    expect(await settledYet(forA)).toBe(true);
  });

  it('lets a write of the exact path go at once when none of its keys has a record waiting', async () => {
    const records = heldRecords();
    const queue = quietQueue(records.store);
    queue.add(recordOf('a'));
    expect(await settledYet(queue.written((record) => record.key === 'z'))).toBe(true);
    expect(records.statements).toEqual([]);

    // Nor once the record of its key is written, even with others waiting behind it.
    const forA = queue.written((record) => record.key === 'a');
    queue.add(recordOf('b'));
    records.answerNext();
    expect(await settledYet(forA)).toBe(true);
    expect(await settledYet(queue.written((record) => record.key === 'a'))).toBe(true);
  });

  it('waits for a record in the statement under way, and sends what came meanwhile right after it', async () => {
    const records = heldRecords();
    const queue = quietQueue(records.store);
    queue.add(recordOf('a'));
    await vi.advanceTimersByTimeAsync(LINGER_MS);
    expect(records.statements).toEqual([['a']]);

    queue.add(recordOf('b'));
    const forB = queue.written((record) => record.key === 'b');
    const forA = queue.written((record) => record.key === 'a');
    records.answerNext();
    expect(await settledYet(forA)).toBe(true);
    // Without lingering: a write waits for it.
    expect(records.statements).toEqual([['a'], ['b']]);
    expect(await settledYet(forB)).toBe(false);
    records.answerNext();
    expect(await settledYet(forB)).toBe(true);
  });

  it('writes everything on flush', async () => {
    const records = fakeRecords([]);
    const queue = quietQueue(records.store);
    queue.add(recordOf('a'));
    await queue.flush();
    queue.add(recordOf('b'));
    await queue.flush();
    expect(records.statements).toEqual([['a'], ['b']]);
  });

  it('lets what comes during a statement linger after it', async () => {
    const records = heldRecords();
    const queue = quietQueue(records.store);
    queue.add(recordOf('a'));
    await vi.advanceTimersByTimeAsync(LINGER_MS);
    queue.add(recordOf('b'));
    records.answerNext();
    await vi.advanceTimersByTimeAsync(LINGER_MS - 1);
    expect(records.statements).toEqual([['a']]);
    await vi.advanceTimersByTimeAsync(1);
    expect(records.statements).toEqual([['a'], ['b']]);
  });

  it('tries a statement again after pauses, and gives it up at last, letting a write that waits for it go', async () => {
    const records = fakeRecords([new Error('down'), new Error('down'), new Error('down')]);
    const givenUp: number[] = [];
    const queue = new RecordQueue<WriteRecord>(records.store, createLogger('silent'), {
      onDoubt: () => undefined,
      onWritten: () => undefined,
      onGivenUp: (count) => givenUp.push(count),
      retryDelaysMs: [100, 200],
    });
    queue.add(recordOf('a'));
    const forA = queue.written((record) => record.key === 'a');
    await vi.advanceTimersByTimeAsync(0);
    expect(records.statements).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(records.statements).toHaveLength(2);
    expect(await settledYet(forA)).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(records.statements).toHaveLength(3);
    expect(await settledYet(forA)).toBe(true);
    expect(givenUp).toEqual([1]);
  });
});
