import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { REFUSAL_REASONS, type RefusalReason } from '../protocol/errors.js';
import { INVALIDATION_KINDS } from '../store/invalidation.js';
import { LatencyHistogram } from './latency-histogram.js';
import { RequestCounts, type CountedRequest } from './request-counts.js';

export { REFUSAL_REASONS, type RefusalReason };

/*
 * The closed label-value sets. The counters below accept only these values (the compiler checks every
 * caller), and the dashboard test checks every matcher in grafana/ against them, so renaming a value
 * here breaks both the code that records it and any dashboard that still selects the old name.
 */

export const LOGIN_OUTCOMES = ['succeeded', 'failed', 'rate_limited'] as const;
export type LoginOutcome = (typeof LOGIN_OUTCOMES)[number];

export const TOKEN_REFRESH_OUTCOMES = ['refreshed', 'reuse_detected', 'invalid'] as const;
export type TokenRefreshOutcome = (typeof TOKEN_REFRESH_OUTCOMES)[number];

export const CACHE_EVENTS = ['hit', 'miss', 'invalidation', 'stale'] as const;
export type CacheEvent = (typeof CACHE_EVENTS)[number];

/** The kinds of cached record (the `kind` of the cache metric): those the invalidation bus knows. */
export const CACHE_RECORD_KINDS = INVALIDATION_KINDS;
export type CacheRecordKind = (typeof CACHE_RECORD_KINDS)[number];

/** How the object store failed: no connection, no answer in time, connection lost, or a 5xx answer. */
export const BACKEND_ERROR_KINDS = ['unreachable', 'timeout', 'reset', '5xx'] as const;
export type BackendErrorKind = (typeof BACKEND_ERROR_KINDS)[number];

export const BYTE_DIRECTIONS = ['in', 'out'] as const;
export type ByteDirection = (typeof BYTE_DIRECTIONS)[number];

/** The tenant limits that refuse storage requests: request rates and storage quotas. */
export const LIMIT_KINDS = [
  'organisation_rate',
  'credential_rate',
  'organisation_quota',
  'bucket_quota',
] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];

/**
 * What became of the records of uploads admitted from leased room under a storage quota
 * (s3/limits/record-queue.ts): written (counted), in_doubt (another process's write of the key may
 * have come later, so the store is asked what the key holds), unresolved (still not known after the
 * store was asked several times) and given_up (the database never took them). The last two leave a
 * bucket's count off until it is recounted.
 */
export const QUOTA_RECORD_OUTCOMES = ['written', 'in_doubt', 'unresolved', 'given_up'] as const;
export type QuotaRecordOutcome = (typeof QUOTA_RECORD_OUTCOMES)[number];

/** A counter whose label values the compiler checks (each label typed by its closed set). */
export type ClosedCounter<Labels extends Record<string, string>> = Omit<
  Counter<Extract<keyof Labels, string>>,
  'inc' | 'labels'
> & {
  inc(labels: Labels, value?: number): void;
};

/** Metric name → label → every value the gateway records for it (closed sets only). */
export const CLOSED_LABEL_VALUES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  gateway_s3_refusals_total: { reason: REFUSAL_REASONS },
  gateway_logins_total: { outcome: LOGIN_OUTCOMES },
  gateway_token_refreshes_total: { outcome: TOKEN_REFRESH_OUTCOMES },
  gateway_credential_cache_events_total: { kind: CACHE_RECORD_KINDS, event: CACHE_EVENTS },
  gateway_backend_errors_total: { kind: BACKEND_ERROR_KINDS },
  gateway_organisation_bytes_total: { direction: BYTE_DIRECTIONS },
  gateway_organisation_limited_requests_total: { limit: LIMIT_KINDS },
  gateway_quota_records_total: { outcome: QUOTA_RECORD_OUTCOMES },
};

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Every metric the gateway exports, in one registry. Label values come from closed sets (operation
 * names, status codes, S3 codes, reasons) or the organisation label, which {@link OrganisationLabels}
 * bounds.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  /** What storage requests add to the counters below, gathered until they are collected. */
  readonly #requestCounts = new RequestCounts();

  readonly s3Requests = new Counter({
    name: 'gateway_s3_requests_total',
    help: 'Storage requests answered, by S3 operation, HTTP status and S3 error code ("" on success).',
    labelNames: ['operation', 'status', 'code'] as const,
    registers: [this.registry],
    collect: (): void => this.#requestCounts.addTo(this),
  });
  readonly s3TimeToFirstByte = new LatencyHistogram({
    name: 'gateway_s3_time_to_first_byte_seconds',
    help: 'Time from request arrival until the response head is sent.',
    labelName: 'operation',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly s3Duration = new LatencyHistogram({
    name: 'gateway_s3_request_duration_seconds',
    help: 'Time from request arrival until the response is finished.',
    labelName: 'operation',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly s3BytesIn = new Counter({
    name: 'gateway_s3_bytes_in_total',
    help: 'Request body bytes received from storage clients.',
    labelNames: ['operation'] as const,
    registers: [this.registry],
    collect: (): void => this.#requestCounts.addTo(this),
  });
  readonly s3BytesOut = new Counter({
    name: 'gateway_s3_bytes_out_total',
    help: 'Response body bytes sent to storage clients.',
    labelNames: ['operation'] as const,
    registers: [this.registry],
    collect: (): void => this.#requestCounts.addTo(this),
  });
  /**
   * Storage requests being processed, counted in a plain number (requestStarted, requestFinished)
   * and read when the gauge is collected: prom-client's inc and dec each build a key from labels
   * (BENCHMARKS.md, change 19).
   */
  #s3InFlightCount = 0;
  readonly s3InFlight = new Gauge({
    name: 'gateway_s3_in_flight_requests',
    help: 'Storage requests being processed.',
    registers: [this.registry],
    collect: (): void => this.s3InFlight.set(this.#s3InFlightCount),
  });
  readonly s3InFlightStreams = new Gauge({
    name: 'gateway_s3_in_flight_streams',
    help: 'Proxied request or response bodies currently streaming.',
    registers: [this.registry],
  });
  readonly refusals: ClosedCounter<{ reason: RefusalReason }> = new Counter({
    name: 'gateway_s3_refusals_total',
    help: 'Storage requests refused at the edge, by reason.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly backendDuration = new LatencyHistogram({
    name: 'gateway_backend_request_duration_seconds',
    help: 'Time until the object store sent its response head.',
    labelName: 'operation',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly backendErrors: ClosedCounter<{ kind: BackendErrorKind }> = new Counter({
    name: 'gateway_backend_errors_total',
    help: 'Object store failures: unreachable, timed out, reset, or 5xx.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  /** Access cache hits (one per storage request) by record kind, gathered until cacheEvents is collected. */
  readonly #cacheHits = new Map<CacheRecordKind, number>();
  readonly cacheEvents: ClosedCounter<{ kind: CacheRecordKind; event: CacheEvent }> = new Counter({
    name: 'gateway_credential_cache_events_total',
    help: 'Access cache hits, misses, invalidations and expired entries served while the database did not answer, by record kind.',
    labelNames: ['kind', 'event'] as const,
    registers: [this.registry],
    collect: (): void => this.#addCacheHits(),
  });
  readonly organisationRequests = new Counter({
    name: 'gateway_organisation_requests_total',
    help:
      'Storage requests per organisation, labelled by name (bounded: the first organisations to send requests ' +
      'since the process started get their own series, up to GATEWAY_METRICS_MAX_ORGANISATIONS; later ones ' +
      'share "_other"; a name starting with "_" is labelled with one more "_" in front).',
    labelNames: ['organisation'] as const,
    registers: [this.registry],
    collect: (): void => this.#requestCounts.addTo(this),
  });
  readonly organisationBytes: ClosedCounter<{ organisation: string; direction: ByteDirection }> = new Counter(
    {
      name: 'gateway_organisation_bytes_total',
      help: 'Storage bytes per organisation and direction (bounded like gateway_organisation_requests_total).',
      labelNames: ['organisation', 'direction'] as const,
      registers: [this.registry],
      collect: (): void => this.#requestCounts.addTo(this),
    },
  );
  readonly organisationLimited: ClosedCounter<{ organisation: string; limit: LimitKind }> = new Counter({
    name: 'gateway_organisation_limited_requests_total',
    help:
      'Storage requests refused by a tenant limit, per organisation (bounded like gateway_organisation_requests_total) ' +
      'and limit: organisation_rate and credential_rate (503 SlowDown), organisation_quota and bucket_quota (403 QuotaExceeded).',
    labelNames: ['organisation', 'limit'] as const,
    registers: [this.registry],
  });
  readonly quotaRecords: ClosedCounter<{ outcome: QuotaRecordOutcome }> = new Counter({
    name: 'gateway_quota_records_total',
    help:
      'Records of uploads admitted from leased room under a storage quota, by outcome: written, in_doubt (the store ' +
      'is asked what the key holds), unresolved and given_up (the count stays off until the bucket is recounted).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  /*
   * Tenant limits and what the organisations hold, read from the database when the metrics are
   * scraped (the control plane's process only: see reportTenantLimits), one read for all six.
   * Each instance reports the same figures, so dashboards take the max over instances.
   */
  readonly organisationStoredBytes = new Gauge({
    name: 'gateway_organisation_stored_bytes',
    help: 'Bytes the organisation holds in the object store, counted while it has a storage quota.',
    labelNames: ['organisation'] as const,
    registers: [this.registry],
    collect: () => this.#refreshTenantLimits(),
  });
  readonly organisationStoredObjects = new Gauge({
    name: 'gateway_organisation_stored_objects',
    help: 'Objects the organisation holds in the object store, counted while it has a storage quota.',
    labelNames: ['organisation'] as const,
    registers: [this.registry],
    collect: () => this.#refreshTenantLimits(),
  });
  readonly organisationPartBytes = new Gauge({
    name: 'gateway_organisation_part_bytes',
    help:
      'Bytes the organisation holds in parts of multipart uploads not yet completed or aborted, counted against its ' +
      'byte quota beside the stored bytes while it has a storage quota.',
    labelNames: ['organisation'] as const,
    registers: [this.registry],
    collect: () => this.#refreshTenantLimits(),
  });
  readonly organisationQuotaBytes = new Gauge({
    name: 'gateway_organisation_quota_bytes',
    help: "The organisation's storage quota in bytes (organisations with one).",
    labelNames: ['organisation'] as const,
    registers: [this.registry],
    collect: () => this.#refreshTenantLimits(),
  });
  readonly organisationQuotaObjects = new Gauge({
    name: 'gateway_organisation_quota_objects',
    help: "The organisation's storage quota in objects (organisations with one).",
    labelNames: ['organisation'] as const,
    registers: [this.registry],
    collect: () => this.#refreshTenantLimits(),
  });
  readonly organisationRequestRateLimit = new Gauge({
    name: 'gateway_organisation_request_rate_limit',
    help: "The organisation's request rate limit in requests per second, over every instance (organisations with one).",
    labelNames: ['organisation'] as const,
    registers: [this.registry],
    collect: () => this.#refreshTenantLimits(),
  });
  #tenantLimits: (() => Promise<readonly TenantLimitFigures[]>) | null = null;
  /** The refresh under way: a scrape collects the six gauges at once, and they share one read. */
  #refreshing: Promise<void> | null = null;

  readonly rateLimitProcesses = new Gauge({
    name: 'gateway_rate_limit_processes',
    help:
      'Processes serving the storage endpoint on every instance sharing the database, as this process last counted them: ' +
      'each takes this share of every request rate limit.',
    registers: [this.registry],
    // Every worker reports the same count; summing them would multiply it.
    aggregator: 'max',
  });

  readonly controlRequests = new Counter({
    name: 'gateway_control_requests_total',
    help: 'Control-plane requests by operation and HTTP status.',
    labelNames: ['operation', 'status'] as const,
    registers: [this.registry],
  });
  readonly controlDuration = new Histogram({
    name: 'gateway_control_request_duration_seconds',
    help: 'Control-plane request latency by operation.',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly logins: ClosedCounter<{ outcome: LoginOutcome }> = new Counter({
    name: 'gateway_logins_total',
    help: `Login attempts by outcome (${LOGIN_OUTCOMES.join(', ')}).`,
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly tokenRefreshes: ClosedCounter<{ outcome: TokenRefreshOutcome }> = new Counter({
    name: 'gateway_token_refreshes_total',
    help: `Refresh-token presentations by outcome (${TOKEN_REFRESH_OUTCOMES.join(', ')}).`,
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly accessLogDropped = new Counter({
    name: 'gateway_access_log_dropped_lines_total',
    help: 'Access log lines dropped because stdout was not read fast enough (16 MiB were waiting).',
    registers: [this.registry],
  });
  readonly storageWorkers = new Gauge({
    name: 'gateway_storage_workers',
    help: 'Processes serving the storage endpoint (GATEWAY_WORKERS); 0 while they are being replaced.',
    registers: [this.registry],
  });
  readonly storageWorkerRestarts = new Counter({
    name: 'gateway_storage_worker_restarts_total',
    help: 'Storage worker processes that stopped unexpectedly and were replaced.',
    registers: [this.registry],
  });

  readonly organisationLabels: OrganisationLabels;

  /** Counts the access cache's events (hits, misses, invalidations, stale-if-error answers). */
  readonly cacheEventRecorder = {
    onHit: (kind: CacheRecordKind): void => {
      this.#cacheHits.set(kind, (this.#cacheHits.get(kind) ?? 0) + 1);
    },
    onMiss: (kind: CacheRecordKind): void => this.cacheEvents.inc({ kind, event: 'miss' }),
    onInvalidate: (kind: CacheRecordKind): void => this.cacheEvents.inc({ kind, event: 'invalidation' }),
    onStale: (kind: CacheRecordKind): void => this.cacheEvents.inc({ kind, event: 'stale' }),
  };

  /**
   * A storage request whose response is over: gateway_s3_requests_total, the byte counters and,
   * with an organisation label, the organisation's requests and bytes.
   */
  countRequest(request: CountedRequest): void {
    this.#requestCounts.count(request);
  }

  /** A storage request arrived (gateway_s3_in_flight_requests). */
  requestStarted(): void {
    this.#s3InFlightCount += 1;
  }

  /** A storage request's response is over. */
  requestFinished(): void {
    this.#s3InFlightCount -= 1;
  }

  #addCacheHits(): void {
    for (const [kind, hits] of this.#cacheHits) {
      if (hits === 0) continue;
      this.cacheEvents.inc({ kind, event: 'hit' }, hits);
      this.#cacheHits.set(kind, 0);
    }
  }

  /** Where the tenant limit gauges read their figures (the database), in the process that reports them. */
  reportTenantLimits(source: () => Promise<readonly TenantLimitFigures[]>): void {
    this.#tenantLimits = source;
  }

  #refreshTenantLimits(): Promise<void> {
    this.#refreshing ??= this.#readTenantLimits().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #readTenantLimits(): Promise<void> {
    const source = this.#tenantLimits;
    if (source === null) return;
    const gauges = [
      this.organisationStoredBytes,
      this.organisationStoredObjects,
      this.organisationPartBytes,
      this.organisationQuotaBytes,
      this.organisationQuotaObjects,
      this.organisationRequestRateLimit,
    ];
    let figures: readonly TenantLimitFigures[];
    try {
      figures = await source();
    } catch {
      // A database that does not answer leaves the last figures; readiness reports the outage.
      return;
    }
    for (const gauge of gauges) gauge.reset();
    for (const row of figures) {
      const labels = { organisation: this.organisationLabels.label(row.organisation) };
      const values: [Gauge<'organisation'>, number | null][] = [
        [this.organisationStoredBytes, row.storedBytes],
        [this.organisationStoredObjects, row.storedObjects],
        [this.organisationPartBytes, row.partBytes],
        [this.organisationQuotaBytes, row.maxBytes],
        [this.organisationQuotaObjects, row.maxObjects],
        [this.organisationRequestRateLimit, row.requestsPerSecond],
      ];
      // Organisations beyond the label limit share "_other": their figures add up.
      for (const [gauge, value] of values) if (value !== null) gauge.inc(labels, value);
    }
  }

  constructor(options: { maxOrganisationLabels?: number; defaultMetrics?: boolean } = {}) {
    this.organisationLabels = new OrganisationLabels(
      options.maxOrganisationLabels ?? DEFAULT_MAX_ORGANISATION_LABELS,
    );
    if (options.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
    }
  }
}

/** An organisation's limits and what it holds, as the tenant limit gauges report them. */
export interface TenantLimitFigures {
  /** Its name (labelled through the bounded organisation label). */
  readonly organisation: string;
  readonly maxBytes: number | null;
  readonly maxObjects: number | null;
  readonly requestsPerSecond: number | null;
  /** Null while it has no storage quota (nothing is counted). */
  readonly storedBytes: number | null;
  readonly storedObjects: number | null;
  readonly partBytes: number | null;
}

/** The default of `metrics.maxOrganisationLabels` (config/default.json). */
export const DEFAULT_MAX_ORGANISATION_LABELS = 50;

/**
 * The organisation label of everything beyond the limit. Organisation names are free text, so no value
 * is reserved by the names themselves: {@link OrganisationLabels} escapes names that start with "_"
 * (one more "_" in front), which leaves every value starting with exactly one "_" to the gateway.
 */
export const ORGANISATION_OVERFLOW_LABEL = '_other';

/** An organisation name as a label value: unchanged unless it starts with "_", which gets one more. */
export function organisationLabelValue(organisationName: string): string {
  return organisationName.startsWith('_') ? `_${organisationName}` : organisationName;
}

/**
 * Keeps the organisation label bounded: the first N organisations seen since the process started get
 * their own series, every later one shares {@link ORGANISATION_OVERFLOW_LABEL}. N is the
 * `metrics.maxOrganisationLabels` setting (GATEWAY_METRICS_MAX_ORGANISATIONS). First seen rather than
 * busiest: a counter's series cannot move to another label value without breaking its rate.
 */
export class OrganisationLabels {
  readonly #limit: number;
  readonly #known = new Set<string>();

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 0)
      throw new RangeError(`invalid organisation label limit ${limit}`);
    this.#limit = limit;
  }

  get limit(): number {
    return this.#limit;
  }

  label(organisationName: string): string {
    const value = organisationLabelValue(organisationName);
    if (this.#known.has(value)) return value;
    if (this.#known.size < this.#limit) {
      this.#known.add(value);
      return value;
    }
    return ORGANISATION_OVERFLOW_LABEL;
  }
}
