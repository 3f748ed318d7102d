import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../../src/store/database.js';
import { LoginAttemptStore, type LoginAttemptOptions } from '../../../src/store/login-attempts.js';
import { runMigrations } from '../../../src/store/migrate.js';
import { createTestDatabase, realPostgresFor, type TestDatabase } from '../../support/database.js';

function clock(start = Date.parse('2030-01-01T00:00:00Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

async function recorded(db: Database, key: string): Promise<number> {
  const [row] = await db.sql<{ count: number }[]>`
    SELECT count(*)::int AS count FROM login_attempts WHERE key = ${key}`;
  return row?.count ?? 0;
}

describe('login attempts, one instance', () => {
  let database: TestDatabase;
  let db: Database;
  const limiter = (options: LoginAttemptOptions) => new LoginAttemptStore(db.sql, options);

  beforeAll(async () => {
    database = await createTestDatabase();
    // Several connections on a real server, so that the parallel attempts below really run at once.
    db = database.connect(10);
    await runMigrations(db.sql);
  });
  afterAll(() => database.drop());

  it('allows `limit` attempts per key in any 60 seconds, then says how long to wait', async () => {
    const time = clock();
    const attempts = limiter({ limit: 3, now: time.now });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(await attempts.attempt(['address:slide'])).toEqual({ allowed: true });
      time.advance(10_000);
    }
    // The first attempt was 30 s ago: a slot frees in 30 s.
    expect(await attempts.attempt(['address:slide'])).toEqual({ allowed: false, retryAfterSeconds: 30 });
    time.advance(29_000);
    expect(await attempts.attempt(['address:slide'])).toEqual({ allowed: false, retryAfterSeconds: 1 });
    time.advance(1_000);
    // The first attempt has left the window: one slot, then the second attempt is the one to wait for.
    expect(await attempts.attempt(['address:slide'])).toEqual({ allowed: true });
    expect(await attempts.attempt(['address:slide'])).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(await recorded(db, 'address:slide')).toBe(3);
  });

  it('rounds a wait of under a second up to one second', async () => {
    const time = clock();
    const attempts = limiter({ limit: 1, now: time.now });
    await attempts.attempt(['address:round']);
    time.advance(59_999);
    expect(await attempts.attempt(['address:round'])).toEqual({ allowed: false, retryAfterSeconds: 1 });
    time.advance(1);
    expect(await attempts.attempt(['address:round'])).toEqual({ allowed: true });
  });

  it('refuses when any of the keys is at its limit, and then records nothing', async () => {
    const time = clock();
    const attempts = limiter({ limit: 2, now: time.now });
    await attempts.attempt(['address:a', 'account:x']);
    await attempts.attempt(['address:b', 'account:x']);
    expect((await attempts.attempt(['address:c', 'account:x'])).allowed).toBe(false);
    expect(await recorded(db, 'address:c')).toBe(0);
    // The refused attempt did not count against address:c.
    expect(await attempts.attempt(['address:c', 'account:y'])).toEqual({ allowed: true });
    expect(await attempts.attempt(['address:c', 'account:z'])).toEqual({ allowed: true });
    expect((await attempts.attempt(['address:c', 'account:w'])).allowed).toBe(false);
    expect(await recorded(db, 'account:w')).toBe(0);
  });

  it('answers with the wait of the busiest key', async () => {
    const time = clock();
    const attempts = limiter({ limit: 1, now: time.now });
    await attempts.attempt(['address:early']);
    time.advance(40_000);
    await attempts.attempt(['account:late']);
    // address:early frees its slot in 20 s, account:late in 60 s.
    expect(await attempts.attempt(['address:early', 'account:late'])).toEqual({
      allowed: false,
      retryAfterSeconds: 60,
    });
  });

  it('keeps keys independent', async () => {
    const attempts = limiter({ limit: 1, now: clock().now });
    expect((await attempts.attempt(['account:solo-x'])).allowed).toBe(true);
    expect((await attempts.attempt(['account:solo-x'])).allowed).toBe(false);
    expect((await attempts.attempt(['account:solo-y'])).allowed).toBe(true);
  });

  it("uses the database's clock by default, never the process's", async () => {
    const databaseNow = async (): Promise<number> => {
      const [row] = await db.sql<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
      return (row as { now: Date }).now.getTime();
    };
    // The process's clock is years off: an attempt recorded or judged by it would show.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2001-01-01T00:00:00Z') });
    try {
      const attempts = limiter({ limit: 1 });
      const beforeFirst = await databaseNow();
      expect(await attempts.attempt(['address:db-clock'])).toEqual({ allowed: true });
      const afterFirst = await databaseNow();
      const [row] = await db.sql<{ attempted_at: Date }[]>`
        SELECT attempted_at FROM login_attempts WHERE key = 'address:db-clock'`;
      const attemptedAt = (row as { attempted_at: Date }).attempted_at.getTime();
      expect(attemptedAt).toBeGreaterThanOrEqual(beforeFirst);
      expect(attemptedAt).toBeLessThanOrEqual(afterFirst);

      const beforeSecond = await databaseNow();
      const refused = await attempts.attempt(['address:db-clock']);
      const afterSecond = await databaseNow();
      expect(refused.allowed).toBe(false);
      if (refused.allowed) return;
      // What is left of the first attempt's 60 s at the database's instant of the second, which
      // lies between the two reads around it (however long they took).
      const waitAt = (instant: number) => Math.max(1, Math.ceil((attemptedAt + 60_000 - instant) / 1000));
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(waitAt(afterSecond));
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(waitAt(beforeSecond));
    } finally {
      vi.useRealTimers();
    }
  });

  it('never records more than the limit, however many attempts on a key run at once', async () => {
    const attempts = limiter({ limit: 5, now: clock().now });
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        attempts.attempt([`address:parallel-${index % 3}`, 'account:parallel']),
      ),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(5);
    expect(await recorded(db, 'account:parallel')).toBe(5);
  });

  it('deletes the expired attempts of the keys it touches', async () => {
    const time = clock();
    const attempts = limiter({ limit: 10, now: time.now, sweepEvery: 1_000_000 });
    await attempts.attempt(['address:touched', 'account:untouched']);
    await attempts.attempt(['address:touched']);
    time.advance(60_000);
    await attempts.attempt(['address:touched']);
    expect(await recorded(db, 'address:touched')).toBe(1);
    // Not attempted again, and no sweep yet: its row stays.
    expect(await recorded(db, 'account:untouched')).toBe(1);
  });

  it('sweeps the expired attempts of other keys every so often, a bounded batch at a time', async () => {
    // The other tests' attempts would be swept too: start from an empty table.
    await db.sql`DELETE FROM login_attempts`;
    const time = clock();
    const seed = limiter({ limit: 10, now: time.now, sweepEvery: 1_000_000 });
    for (let index = 0; index < 5; index += 1) await seed.attempt([`address:stale-${index}`]);
    time.advance(61_000);
    await seed.attempt(['address:fresh']);
    const stale = async () => {
      const [row] = await db.sql<{ count: number }[]>`
        SELECT count(*)::int AS count FROM login_attempts WHERE key LIKE 'address:stale-%'`;
      return row?.count ?? 0;
    };
    expect(await stale()).toBe(5);

    const sweeping = limiter({ limit: 10, now: time.now, sweepEvery: 2, sweepBatch: 3 });
    await sweeping.attempt(['address:trigger']);
    expect(await stale()).toBe(5);
    await sweeping.attempt(['address:trigger']);
    expect(await stale()).toBe(2);
    await sweeping.attempt(['address:trigger']);
    await sweeping.attempt(['address:trigger']);
    expect(await stale()).toBe(0);
    // Attempts still in the window are kept.
    expect(await recorded(db, 'address:fresh')).toBe(1);
    expect(await recorded(db, 'address:trigger')).toBe(4);
  });
});

// Two connection pools on one database need a real PostgreSQL server (PGlite serves one session).
const postgres = realPostgresFor('the shared login attempt tests');

describe.runIf(postgres)('login attempts, two instances on one database', () => {
  let database: TestDatabase;
  let first: Database;
  let second: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    first = database.connect(6);
    second = database.connect(6);
    await runMigrations(first.sql);
  });
  afterAll(() => database.drop());

  it('counts the attempts made through either instance against both', async () => {
    const time = clock();
    const a = new LoginAttemptStore(first.sql, { limit: 3, now: time.now });
    const b = new LoginAttemptStore(second.sql, { limit: 3, now: time.now });
    expect(await a.attempt(['address:shared', 'account:shared'])).toEqual({ allowed: true });
    time.advance(5_000);
    expect(await a.attempt(['address:shared', 'account:shared'])).toEqual({ allowed: true });
    time.advance(5_000);
    expect(await b.attempt(['address:other', 'account:shared'])).toEqual({ allowed: true });
    // The account has used its three attempts, two of them through the other instance.
    expect(await b.attempt(['address:third', 'account:shared'])).toEqual({
      allowed: false,
      retryAfterSeconds: 50,
    });
    expect(await a.attempt(['address:fourth', 'account:shared'])).toEqual({
      allowed: false,
      retryAfterSeconds: 50,
    });
    time.advance(50_000);
    expect(await b.attempt(['address:third', 'account:shared'])).toEqual({ allowed: true });
  });

  it('never records more than the limit when both instances attempt at once', async () => {
    const a = new LoginAttemptStore(first.sql, { limit: 7 });
    const b = new LoginAttemptStore(second.sql, { limit: 7 });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        (index % 2 === 0 ? a : b).attempt([`address:race-${index % 5}`, 'account:race']),
      ),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(7);
    expect(await recorded(first, 'account:race')).toBe(7);
  });
});
