import type { Sql } from './database.js';

export interface UsageSample {
  organisationId: string;
  bucket: string;
  /** '' for anonymous reads of a public bucket. */
  accessKeyId: string;
  bytesIn: number;
  bytesOut: number;
  /** Refused for a request rate limit: counted apart from the requests served. */
  throttled?: boolean;
}

interface Totals {
  requests: number;
  bytesIn: number;
  bytesOut: number;
  throttled: number;
}

const HOUR_MS = 3_600_000;

interface Pending {
  readonly sample: Omit<UsageSample, 'bytesIn' | 'bytesOut' | 'throttled'>;
  readonly hour: Date;
  readonly totals: Totals;
}

/** The name of a pending entry: one per organisation, bucket, credential and hour. */
function pendingKey(sample: Pending['sample'], hourMs: number): string {
  return `${sample.organisationId}\u0000${sample.bucket}\u0000${sample.accessKeyId}\u0000${hourMs}`;
}

/**
 * Meters storage traffic per organisation, bucket, credential and hour. The storage endpoint records
 * in memory on every request; a timer flushes the sums in one upsert, so the hot path never waits on
 * the database.
 */
export class UsageRecorder {
  readonly #sql: Sql;
  #pending = new Map<string, Pending>();
  /** The entry recorded to last, while it is pending. */
  #last: Pending | null = null;
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> = Promise.resolve();

  constructor(sql: Sql, flushIntervalMs = 5_000) {
    this.#sql = sql;
    if (flushIntervalMs > 0) {
      this.#timer = setInterval(() => void this.flush().catch(() => undefined), flushIntervalMs);
      this.#timer.unref();
    }
  }

  record(sample: UsageSample, at?: Date): void {
    const hourMs = Math.floor((at === undefined ? Date.now() : at.getTime()) / HOUR_MS) * HOUR_MS;
    // Requests come in runs of one tenant's bucket and key: the last entry is usually the one.
    const last = this.#last;
    let entry =
      last !== null &&
      last.hour.getTime() === hourMs &&
      last.sample.accessKeyId === sample.accessKeyId &&
      last.sample.bucket === sample.bucket &&
      last.sample.organisationId === sample.organisationId
        ? last
        : this.#pending.get(pendingKey(sample, hourMs));
    if (entry === undefined) {
      entry = {
        sample: {
          organisationId: sample.organisationId,
          bucket: sample.bucket,
          accessKeyId: sample.accessKeyId,
        },
        hour: new Date(hourMs),
        totals: { requests: 0, bytesIn: 0, bytesOut: 0, throttled: 0 },
      };
      this.#pending.set(pendingKey(sample, hourMs), entry);
    }
    this.#last = entry;
    if (sample.throttled === true) entry.totals.throttled += 1;
    else entry.totals.requests += 1;
    entry.totals.bytesIn += sample.bytesIn;
    entry.totals.bytesOut += sample.bytesOut;
  }

  /** Writes what has been recorded; safe to call concurrently (calls queue behind each other). */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.flush();
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return;
    const batch = [...this.#pending.values()];
    this.#pending = new Map();
    this.#last = null;
    const rows = batch.map(({ sample, hour, totals }) => ({
      organisation_id: sample.organisationId,
      bucket: sample.bucket,
      access_key_id: sample.accessKeyId,
      hour,
      requests: totals.requests,
      bytes_in: totals.bytesIn,
      bytes_out: totals.bytesOut,
      throttled: totals.throttled,
    }));
    try {
      await this.#sql`
        INSERT INTO usage_counters ${this.#sql(rows)}
        ON CONFLICT (organisation_id, hour, bucket, access_key_id) DO UPDATE SET
          requests = usage_counters.requests + EXCLUDED.requests,
          bytes_in = usage_counters.bytes_in + EXCLUDED.bytes_in,
          bytes_out = usage_counters.bytes_out + EXCLUDED.bytes_out,
          throttled = usage_counters.throttled + EXCLUDED.throttled`;
    } catch (error) {
      // A deleted organisation's counters fail their foreign key; anything else is retried next flush.
      if ((error as { code?: string }).code !== '23503') {
        for (const entry of batch) this.#requeue(entry);
        throw error;
      }
    }
  }

  #requeue(entry: Pending): void {
    const key = pendingKey(entry.sample, entry.hour.getTime());
    const existing = this.#pending.get(key);
    if (existing === undefined) this.#pending.set(key, entry);
    else {
      existing.totals.requests += entry.totals.requests;
      existing.totals.bytesIn += entry.totals.bytesIn;
      existing.totals.bytesOut += entry.totals.bytesOut;
      existing.totals.throttled += entry.totals.throttled;
    }
  }
}

export interface UsageRow {
  bucket: string;
  accessKeyId: string;
  requests: number;
  bytesIn: number;
  bytesOut: number;
  throttled: number;
}

/** Sums per bucket and credential over [from, to). */
export async function queryUsage(
  sql: Sql,
  organisationId: string,
  from: Date,
  to: Date,
): Promise<UsageRow[]> {
  const rows = await sql<
    {
      bucket: string;
      access_key_id: string;
      requests: string;
      bytes_in: string;
      bytes_out: string;
      throttled: string;
    }[]
  >`
    SELECT bucket, access_key_id, sum(requests) AS requests, sum(bytes_in) AS bytes_in, sum(bytes_out) AS bytes_out,
           sum(throttled) AS throttled
    FROM usage_counters
    WHERE organisation_id = ${organisationId} AND hour >= ${from} AND hour < ${to}
    GROUP BY bucket, access_key_id
    ORDER BY bucket, access_key_id`;
  return rows.map((row) => ({
    bucket: row.bucket,
    accessKeyId: row.access_key_id,
    requests: Number(row.requests),
    bytesIn: Number(row.bytes_in),
    bytesOut: Number(row.bytes_out),
    throttled: Number(row.throttled),
  }));
}
