import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/observability/logger.js';
import type { Planned } from '../../../../src/s3/stages.js';
import { StorageQuotas } from '../../../../src/s3/limits/storage-quotas.js';
import type { Upstream } from '../../../../src/s3/upstream/upstream.js';
import type { StorageReservations } from '../../../../src/store/storage-reservations.js';
import type { StorageUploadsStore } from '../../../../src/store/storage-uploads.js';

/** Neither the database nor the store may be reached: the copy is decided before either is asked. */
const untouchable = new Proxy(
  {},
  {
    get: () => {
      throw new Error('not to be used');
    },
  },
);
const quotas = new StorageQuotas(
  untouchable as StorageReservations,
  untouchable as StorageUploadsStore,
  '00000000-0000-4000-8000-000000000000',
  untouchable as Upstream,
  createLogger('silent'),
);

/** A CopyObject into a bucket with this quota. */
function copyInto(maxBytes: number | null): Planned {
  return {
    bucket: 'photos',
    key: 'copy.jpg',
    headers: { 'x-amz-copy-source': 'photos/source.jpg' },
    operation: { name: 'CopyObject' },
    entry: { bucket: { name: 'photos', organisationId: 'o', quota: { maxBytes, maxObjects: null } } },
    organisation: { limits: { storage: { maxBytes: null, maxObjects: null } } },
  } as unknown as Planned;
}

describe('a copy into a bucket under a storage quota', () => {
  it('is refused as the store answered when the store did not tell the source size', async () => {
    const sent: string[] = [];
    const send = async () => {
      sent.push('sent');
    };
    const refusal = (status: number) =>
      quotas.copy(copyInto(1000), { size: null, status }, send).then(
        () => undefined,
        (error: { code: string; status: number; text: string }) => [error.status, error.code, error.text],
      );
    expect(await refusal(400)).toEqual([
      400,
      'InvalidRequest',
      "The object store did not tell the copy source's size, which the storage quota needs: check the copy source and its x-amz-copy-source-server-side-encryption-customer-* headers.",
    ]);
    expect(await refusal(403)).toEqual([403, 'AccessDenied', 'Access Denied']);
    expect(await refusal(500)).toEqual([
      503,
      'ServiceUnavailable',
      'The object store behind this endpoint is unavailable. Please retry.',
    ]);
    expect(sent).toEqual([]);
  });

  it('goes to the store when no quota applies, whatever the store said of the source', async () => {
    const sent: string[] = [];
    await quotas.copy(copyInto(null), { size: null, status: 400 }, async () => {
      sent.push('sent');
    });
    expect(sent).toEqual(['sent']);
  });
});

describe('a write to a key another write of this process holds', () => {
  /** A DeleteObject of photos/busy.jpg in a bucket under a quota. */
  const deletion = (): Planned =>
    ({
      bucket: 'photos',
      key: 'busy.jpg',
      headers: {},
      query: [],
      operation: { name: 'DeleteObject' },
      exchange: { response: { destroyed: false } },
      entry: { bucket: { name: 'photos', organisationId: 'o', quota: { maxBytes: 1000, maxObjects: null } } },
      organisation: { limits: { storage: { maxBytes: null, maxObjects: null } } },
    }) as unknown as Planned;

  it('waits for its turn at most keyWaitMs, then is refused 503 SlowDown; the holder goes on', async () => {
    let release: (reservation: { outcome: 'held'; id: null }) => void = () => undefined;
    const reservations = {
      // The first write's reservation is asked for and not answered until the test says so.
      reserve: () => new Promise((resolve) => (release = resolve)),
      forgetWrites: () => undefined,
    };
    const waiting = new StorageQuotas(
      reservations as unknown as StorageReservations,
      untouchable as StorageUploadsStore,
      '00000000-0000-4000-8000-000000000000',
      untouchable as Upstream,
      createLogger('silent'),
      { keyWaitMs: 20 },
    );
    const sent: string[] = [];
    const holder = waiting.forwarded(deletion(), async () => {
      sent.push('holder');
    });
    const refused = await waiting
      .forwarded(deletion(), async () => {
        sent.push('second');
      })
      .then(
        () => undefined,
        (error: { code: string; status: number; text: string }) => [error.status, error.code, error.text],
      );
    expect(refused).toEqual([
      503,
      'SlowDown',
      'Another write to this key is under way; retry once it has finished.',
    ]);
    release({ outcome: 'held', id: null });
    await holder;
    expect(sent).toEqual(['holder']);
  });
});
