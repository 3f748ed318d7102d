/**
 * The counters every storage request adds to (requests by outcome, bytes by operation and by
 * organisation), gathered per label set in plain objects and added to prom-client's counters when
 * those are collected: at each scrape, and by `get()`. prom-client builds and checks a key from the
 * labels on every increment; at five increments per request that was most of what the metrics cost
 * a storage worker per 4 KiB request (BENCHMARKS.md, change 17). A scrape reads the same figures.
 */

/** A counter with these labels, as far as adding to it goes. */
interface Increments<Labels> {
  inc(labels: Labels, value: number): void;
}

/** The counters the gathered figures go to (GatewayMetrics). */
export interface RequestCounters {
  readonly s3Requests: Increments<{ operation: string; status: string; code: string }>;
  readonly s3BytesIn: Increments<{ operation: string }>;
  readonly s3BytesOut: Increments<{ operation: string }>;
  readonly organisationRequests: Increments<{ organisation: string }>;
  readonly organisationBytes: Increments<{ organisation: string; direction: 'in' | 'out' }>;
}

/** One storage request, once its response is over. */
export interface CountedRequest {
  readonly operation: string;
  readonly status: number;
  /** The S3 error code answered, '' on success. */
  readonly code: string;
  /** The organisation's bounded label (OrganisationLabels), null when none is accounted. */
  readonly organisation: string | null;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

interface Figures {
  requests: number;
  bytesIn: number;
  bytesOut: number;
}

interface OutcomeFigures extends Figures {
  readonly labels: { readonly operation: string; readonly status: string; readonly code: string };
}

function add(figures: Figures, request: CountedRequest): void {
  figures.requests += 1;
  figures.bytesIn += request.bytesIn;
  figures.bytesOut += request.bytesOut;
}

function clear(figures: Figures): void {
  figures.requests = 0;
  figures.bytesIn = 0;
  figures.bytesOut = 0;
}

/**
 * The figures gathered since they were last added to the counters. Their label sets are bounded
 * (operations, statuses and codes are closed sets; organisations are bounded by their labels), so
 * the entries are kept and zeroed rather than dropped.
 */
export class RequestCounts {
  readonly #outcomes = new Map<string, OutcomeFigures>();
  readonly #organisations = new Map<string, Figures>();

  count(request: CountedRequest): void {
    const key = `${request.operation} ${request.status} ${request.code}`;
    let outcome = this.#outcomes.get(key);
    if (outcome === undefined) {
      const labels = { operation: request.operation, status: String(request.status), code: request.code };
      outcome = { labels, requests: 0, bytesIn: 0, bytesOut: 0 };
      this.#outcomes.set(key, outcome);
    }
    add(outcome, request);
    if (request.organisation === null) return;
    let organisation = this.#organisations.get(request.organisation);
    if (organisation === undefined) {
      organisation = { requests: 0, bytesIn: 0, bytesOut: 0 };
      this.#organisations.set(request.organisation, organisation);
    }
    add(organisation, request);
  }

  /** Adds what was gathered to `counters`, and starts gathering again from nothing. */
  addTo(counters: RequestCounters): void {
    for (const outcome of this.#outcomes.values()) {
      if (outcome.requests === 0) continue;
      const { operation } = outcome.labels;
      counters.s3Requests.inc(outcome.labels, outcome.requests);
      counters.s3BytesIn.inc({ operation }, outcome.bytesIn);
      counters.s3BytesOut.inc({ operation }, outcome.bytesOut);
      clear(outcome);
    }
    for (const [organisation, figures] of this.#organisations) {
      if (figures.requests === 0) continue;
      counters.organisationRequests.inc({ organisation }, figures.requests);
      counters.organisationBytes.inc({ organisation, direction: 'in' }, figures.bytesIn);
      counters.organisationBytes.inc({ organisation, direction: 'out' }, figures.bytesOut);
      clear(figures);
    }
  }
}
