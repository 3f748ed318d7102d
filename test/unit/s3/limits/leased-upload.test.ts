import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { KeyTurns } from '../../../../src/s3/limits/key-turns.js';
import { LeasedUpload, observationOf } from '../../../../src/s3/limits/leased-upload.js';

const LEASE = { id: 'lease-1', scopes: ['bucket:photos', 'organisation:o'] } as const;
const NO_KEY = Object.freeze({});

function uploadOf(turns: KeyTurns): LeasedUpload {
  return new LeasedUpload('photos', 'a.jpg', LEASE, 4096, 'writer-1', NO_KEY, turns);
}

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('an upload from a lease', () => {
  it('is its own turn at its key: the next write to the key waits until its record is queued', async () => {
    const turns = new KeyTurns();
    const upload = uploadOf(turns);
    expect(upload.takeFreeTurn()).toBe(true);
    expect(uploadOf(turns).takeFreeTurn()).toBe(false);

    const next = turns.take('photos', 'a.jpg', performance.now() + 60_000);
    expect(await settledYet(next)).toBe(false);
    upload.endTurn();
    const end = await next;
    expect(end).not.toBeNull();
    end?.();
    expect(turns.size).toBe(0);
  });

  it('ends the turn it waited for once its record is queued', async () => {
    const turns = new KeyTurns();
    const first = turns.takeFree('photos', 'a.jpg');
    const upload = uploadOf(turns);
    expect(upload.takeFreeTurn()).toBe(false);
    const waited = turns.take('photos', 'a.jpg', performance.now() + 60_000);
    first?.();
    const end = await waited;
    upload.tookTurn(end ?? (() => undefined));
    expect(turns.size).toBe(1);
    upload.endTurn();
    expect(turns.size).toBe(0);
  });

  it('records its lease, the interval it was in flight, and its bytes only when the store stored them', () => {
    const stored = uploadOf(new KeyTurns());
    stored.sending();
    stored.answered(true);
    stored.over();
    expect(stored).toMatchObject({
      bucket: 'photos',
      key: 'a.jpg',
      bytes: 4096,
      leaseId: 'lease-1',
      leasedBytes: 4096,
    });
    expect(stored.scopes).toEqual(LEASE.scopes);
    expect(stored.from).toBeGreaterThan(0);
    expect(stored.until).toBeGreaterThanOrEqual(stored.from);

    const refused = uploadOf(new KeyTurns());
    refused.sending();
    refused.answered(false);
    expect(refused.bytes).toBeUndefined();

    // No answer heard (the store or the client went away): the interval closes when the send ends.
    const unheard = uploadOf(new KeyTurns());
    unheard.sending();
    unheard.over();
    expect(unheard.bytes).toBeUndefined();
    expect(unheard.until).toBeGreaterThanOrEqual(unheard.from);
  });

  it('is observed as a record of no lease, one observation on', () => {
    const upload = uploadOf(new KeyTurns());
    const observation = observationOf(upload, { bytes: 10, writer: 'writer-1', from: 5, until: 6 });
    expect(observation).toMatchObject({
      bucket: 'photos',
      key: 'a.jpg',
      scopes: LEASE.scopes,
      bytes: 10,
      from: 5,
      until: 6,
      leaseId: null,
      leasedBytes: 0,
      observations: 1,
    });
  });
});
