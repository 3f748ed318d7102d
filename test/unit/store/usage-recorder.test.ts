import { describe, expect, it } from 'vitest';
import type { Sql } from '../../../src/store/database.js';
import { UsageRecorder } from '../../../src/store/usage.js';

interface Row {
  organisation_id: string;
  bucket: string;
  access_key_id: string;
  hour: Date;
  requests: number;
  bytes_in: number;
  bytes_out: number;
  throttled: number;
}

/** A stand-in for postgres.js: `sql(rows)` gives the rows back, and the statement keeps them. */
function recordingSql(): { sql: Sql; statements: Row[][] } {
  const statements: Row[][] = [];
  const sql = (first: unknown, ...values: unknown[]): unknown => {
    if (Array.isArray(first) && 'raw' in first) {
      statements.push(values[0] as Row[]);
      return Promise.resolve([]);
    }
    return first;
  };
  return { sql: sql as unknown as Sql, statements };
}

const HOUR = 3_600_000;
const at = (ms: number): Date => new Date(Date.UTC(2026, 10, 28, 10) + ms);

describe('UsageRecorder', () => {
  it('adds each request to its organisation, bucket, key and hour, however requests interleave', async () => {
    const { sql, statements } = recordingSql();
    const usage = new UsageRecorder(sql, 0);
    const photos = { organisationId: 'org-a', bucket: 'photos', accessKeyId: 'KEY1' };
    const logs = { organisationId: 'org-a', bucket: 'logs', accessKeyId: 'KEY1' };
    const other = { organisationId: 'org-b', bucket: 'photos', accessKeyId: 'KEY2' };
    usage.record({ ...photos, bytesIn: 10, bytesOut: 0 }, at(0));
    usage.record({ ...photos, bytesIn: 5, bytesOut: 7 }, at(1));
    usage.record({ ...logs, bytesIn: 1, bytesOut: 0 }, at(2));
    usage.record({ ...photos, bytesIn: 0, bytesOut: 100 }, at(3));
    usage.record({ ...other, bytesIn: 0, bytesOut: 1, throttled: true }, at(4));
    usage.record({ ...photos, bytesIn: 2, bytesOut: 0 }, at(HOUR));
    await usage.flush();

    const totals = (statements[0] ?? []).map((row) => [
      row.organisation_id,
      row.bucket,
      row.access_key_id,
      row.hour.getTime() - at(0).getTime(),
      row.requests,
      row.bytes_in,
      row.bytes_out,
      row.throttled,
    ]);
    expect(totals).toEqual([
      ['org-a', 'photos', 'KEY1', 0, 3, 15, 107, 0],
      ['org-a', 'logs', 'KEY1', 0, 1, 1, 0, 0],
      ['org-b', 'photos', 'KEY2', 0, 0, 0, 1, 1],
      ['org-a', 'photos', 'KEY1', HOUR, 1, 2, 0, 0],
    ]);
  });

  it('starts afresh after a flush: what came before is not counted twice', async () => {
    const { sql, statements } = recordingSql();
    const usage = new UsageRecorder(sql, 0);
    const sample = {
      organisationId: 'org-a',
      bucket: 'photos',
      accessKeyId: 'KEY1',
      bytesIn: 1,
      bytesOut: 0,
    };
    usage.record(sample, at(0));
    await usage.flush();
    usage.record(sample, at(1));
    usage.record(sample, at(2));
    await usage.flush();
    expect(statements.map((rows) => rows.map((row) => row.requests))).toEqual([[1], [2]]);
  });
});
