import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../../src/observability/logger.js';
import { LINGER_MS, RecordQueue, type QueuedRecord } from '../../../../src/s3/limits/record-queue.js';
import type { StorageRecords, WriteRecord } from '../../../../src/store/storage-records.js';

function recordOf(key: string, settled: () => void = () => undefined): QueuedRecord {
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
    settled,
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

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the queue of records of uploads from leases', () => {
  it('writes the records added together in one statement, then tells each it is written', async () => {
    const records = fakeRecords([[1]]);
    const doubted: string[] = [];
    const written: [number, number][] = [];
    const queue = new RecordQueue(records.store, createLogger('silent'), {
      onDoubt: (record) => doubted.push(record.key),
      onWritten: (counted, doubtful) => written.push([counted, doubtful]),
    });
    const done: string[] = [];
    for (const key of ['a', 'b', 'c']) queue.add(recordOf(key, () => done.push(key)));
    expect(records.statements).toEqual([]);

    await vi.advanceTimersByTimeAsync(LINGER_MS);
    expect(records.statements).toEqual([['a', 'b', 'c']]);
    expect(done).toEqual(['a', 'b', 'c']);
    expect(doubted).toEqual(['b']);
    expect(written).toEqual([[2, 1]]);
  });

  it('writes at once when hurried, and everything on flush', async () => {
    const records = fakeRecords([]);
    const queue = new RecordQueue(records.store, createLogger('silent'), {
      onDoubt: () => undefined,
      onWritten: () => undefined,
    });
    queue.add(recordOf('a'));
    queue.hurry();
    await vi.advanceTimersByTimeAsync(0);
    expect(records.statements).toEqual([['a']]);

    queue.add(recordOf('b'));
    await queue.flush();
    expect(records.statements).toEqual([['a'], ['b']]);
  });

  it('lets what comes during a statement linger after it, unless a write hurries it', async () => {
    let answer: () => void = () => undefined;
    const statements: string[][] = [];
    const store = {
      write: (records: readonly WriteRecord[]) => {
        statements.push(records.map((record) => record.key));
        return new Promise<number[]>((resolve) => (answer = () => resolve([])));
      },
    } as unknown as StorageRecords;
    const queue = new RecordQueue(store, createLogger('silent'), {
      onDoubt: () => undefined,
      onWritten: () => undefined,
    });
    queue.add(recordOf('a'));
    await vi.advanceTimersByTimeAsync(LINGER_MS);
    queue.add(recordOf('b'));
    answer();
    await vi.advanceTimersByTimeAsync(LINGER_MS - 1);
    expect(statements).toEqual([['a']]);
    await vi.advanceTimersByTimeAsync(1);
    expect(statements).toEqual([['a'], ['b']]);

    queue.add(recordOf('c'));
    queue.hurry();
    answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(statements).toEqual([['a'], ['b'], ['c']]);
  });

  it('tries a statement again after pauses, and gives it up at last without holding its uploads', async () => {
    const records = fakeRecords([new Error('down'), new Error('down'), new Error('down')]);
    const givenUp: number[] = [];
    const queue = new RecordQueue(records.store, createLogger('silent'), {
      onDoubt: () => undefined,
      onWritten: () => undefined,
      onGivenUp: (count) => givenUp.push(count),
      retryDelaysMs: [100, 200],
    });
    let done = false;
    queue.add(recordOf('a', () => (done = true)));
    await vi.advanceTimersByTimeAsync(LINGER_MS);
    expect(records.statements).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(records.statements).toHaveLength(2);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(records.statements).toHaveLength(3);
    expect(done).toBe(true);
    expect(givenUp).toEqual([1]);
  });
});
