import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Why the storage endpoint refused a request; a fixed set so the label stays bounded. */
export type RefusalReason =
  | 'signature'
  | 'unknown_key'
  | 'expired'
  | 'scope'
  | 'suspended'
  | 'skew'
  | 'presign_expired'
  | 'malformed'
  | 'ban'
  | 'bot_protection'
  | 'anonymous'
  | 'checksum';

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Every metric the gateway exports, in one registry. Label values come from closed sets (operation
 * names, status codes, S3 codes, reasons) or the organisation label, which {@link OrganisationLabels}
 * bounds.
 */
export class GatewayMetrics {
  readonly registry = new Registry();

  readonly s3Requests = new Counter({
    name: 'gateway_s3_requests_total',
    help: 'Storage requests answered, by S3 operation, HTTP status and S3 error code ("" on success).',
    labelNames: ['operation', 'status', 'code'] as const,
    registers: [this.registry],
  });
  readonly s3TimeToFirstByte = new Histogram({
    name: 'gateway_s3_time_to_first_byte_seconds',
    help: 'Time from request arrival until the response head is sent.',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly s3Duration = new Histogram({
    name: 'gateway_s3_request_duration_seconds',
    help: 'Time from request arrival until the response is finished.',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly s3BytesIn = new Counter({
    name: 'gateway_s3_bytes_in_total',
    help: 'Request body bytes received from storage clients.',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });
  readonly s3BytesOut = new Counter({
    name: 'gateway_s3_bytes_out_total',
    help: 'Response body bytes sent to storage clients.',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });
  readonly s3InFlight = new Gauge({
    name: 'gateway_s3_in_flight_requests',
    help: 'Storage requests being processed.',
    registers: [this.registry],
  });
  readonly s3InFlightStreams = new Gauge({
    name: 'gateway_s3_in_flight_streams',
    help: 'Proxied request or response bodies currently streaming.',
    registers: [this.registry],
  });
  readonly refusals = new Counter({
    name: 'gateway_s3_refusals_total',
    help: 'Storage requests refused at the edge, by reason.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly backendDuration = new Histogram({
    name: 'gateway_backend_request_duration_seconds',
    help: 'Time until the object store sent its response head.',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly backendErrors = new Counter({
    name: 'gateway_backend_errors_total',
    help: 'Object store failures: unreachable, timed out, reset, or 5xx.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly cacheEvents = new Counter({
    name: 'gateway_credential_cache_events_total',
    help: 'Access cache hits, misses and invalidations, by record kind.',
    labelNames: ['kind', 'event'] as const,
    registers: [this.registry],
  });
  readonly organisationRequests = new Counter({
    name: 'gateway_organisation_requests_total',
    help: 'Storage requests per organisation (bounded: the busiest organisations by name, the rest as "other").',
    labelNames: ['organisation'] as const,
    registers: [this.registry],
  });
  readonly organisationBytes = new Counter({
    name: 'gateway_organisation_bytes_total',
    help: 'Storage bytes per organisation and direction (bounded like gateway_organisation_requests_total).',
    labelNames: ['organisation', 'direction'] as const,
    registers: [this.registry],
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
  readonly logins = new Counter({
    name: 'gateway_logins_total',
    help: 'Login attempts by outcome (succeeded, failed, rate_limited).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly tokenRefreshes = new Counter({
    name: 'gateway_token_refreshes_total',
    help: 'Refresh-token presentations by outcome (refreshed, reuse_detected, invalid).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly organisationLabels: OrganisationLabels;

  constructor(options: { maxOrganisationLabels?: number; defaultMetrics?: boolean } = {}) {
    this.organisationLabels = new OrganisationLabels(options.maxOrganisationLabels ?? 50);
    if (options.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
    }
  }
}

/**
 * Keeps the organisation label bounded: the first N organisations seen get their own series, the
 * rest share "other". N is configured well above the number of tenants that matter on one dashboard.
 */
export class OrganisationLabels {
  readonly #limit: number;
  readonly #known = new Set<string>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  label(organisationName: string): string {
    if (this.#known.has(organisationName)) return organisationName;
    if (this.#known.size < this.#limit) {
      this.#known.add(organisationName);
      return organisationName;
    }
    return 'other';
  }
}
