import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import type { CountedRequest } from '../../../src/observability/request-counts.js';

const GET: CountedRequest = {
  operation: 'GetObject',
  status: 200,
  code: '',
  organisation: 'acme',
  bytesIn: 0,
  bytesOut: 4096,
};
const DENIED: CountedRequest = {
  operation: 'PutObject',
  status: 403,
  code: 'AccessDenied',
  organisation: null,
  bytesIn: 10,
  bytesOut: 243,
};

/** One sample of the scrape's text, by its exact series. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the per-request counters', () => {
  it('show every request counted before a scrape, once, and add the later ones at the next', async () => {
    const metrics = new GatewayMetrics({ maxOrganisationLabels: 10, defaultMetrics: false });
    metrics.countRequest(GET);
    metrics.countRequest(GET);
    metrics.countRequest(DENIED);
    let text = await metrics.registry.metrics();
    expect(sample(text, 'gateway_s3_requests_total{operation="GetObject",status="200",code=""}')).toBe(2);
    expect(
      sample(text, 'gateway_s3_requests_total{operation="PutObject",status="403",code="AccessDenied"}'),
    ).toBe(1);
    expect(sample(text, 'gateway_s3_bytes_out_total{operation="GetObject"}')).toBe(8192);
    expect(sample(text, 'gateway_s3_bytes_in_total{operation="PutObject"}')).toBe(10);
    expect(sample(text, 'gateway_organisation_requests_total{organisation="acme"}')).toBe(2);
    expect(sample(text, 'gateway_organisation_bytes_total{organisation="acme",direction="out"}')).toBe(8192);
    expect(sample(text, 'gateway_organisation_bytes_total{organisation="acme",direction="in"}')).toBe(0);

    // A second scrape with nothing new reads the same; one more request adds one.
    expect(await metrics.registry.metrics()).toBe(text);
    metrics.countRequest(GET);
    text = await metrics.registry.metrics();
    expect(sample(text, 'gateway_s3_requests_total{operation="GetObject",status="200",code=""}')).toBe(3);
    expect(sample(text, 'gateway_organisation_requests_total{organisation="acme"}')).toBe(3);
    expect(sample(text, 'gateway_organisation_bytes_total{organisation="acme",direction="out"}')).toBe(12288);
  });

  it('keep outcomes that differ in one label apart, in whatever order they come', async () => {
    const metrics = new GatewayMetrics({ maxOrganisationLabels: 10, defaultMetrics: false });
    const partial: CountedRequest = { ...GET, status: 206 };
    const quota: CountedRequest = { ...DENIED, code: 'QuotaExceeded' };
    const head: CountedRequest = { ...GET, operation: 'HeadObject', bytesOut: 0 };
    for (const request of [GET, partial, GET, DENIED, quota, quota, DENIED, head, GET])
      metrics.countRequest(request);
    const text = await metrics.registry.metrics();
    const requests = (labels: string): number | undefined =>
      sample(text, `gateway_s3_requests_total{${labels}}`);
    expect(requests('operation="GetObject",status="200",code=""')).toBe(3);
    expect(requests('operation="GetObject",status="206",code=""')).toBe(1);
    expect(requests('operation="PutObject",status="403",code="AccessDenied"')).toBe(2);
    expect(requests('operation="PutObject",status="403",code="QuotaExceeded"')).toBe(2);
    expect(requests('operation="HeadObject",status="200",code=""')).toBe(1);
  });

  it('are up to date when one counter is read on its own', async () => {
    const metrics = new GatewayMetrics({ maxOrganisationLabels: 10, defaultMetrics: false });
    metrics.countRequest(GET);
    const family = await metrics.organisationRequests.get();
    expect(family.values.map((value) => [value.labels.organisation, value.value])).toEqual([['acme', 1]]);
    const bytes = await metrics.s3BytesOut.get();
    expect(bytes.values.map((value) => [value.labels.operation, value.value])).toEqual([['GetObject', 4096]]);
  });

  it('show the requests in flight at the moment of the scrape', async () => {
    const metrics = new GatewayMetrics({ maxOrganisationLabels: 10, defaultMetrics: false });
    metrics.requestStarted();
    metrics.requestStarted();
    metrics.requestStarted();
    metrics.requestFinished();
    expect(sample(await metrics.registry.metrics(), 'gateway_s3_in_flight_requests')).toBe(2);
    metrics.requestFinished();
    metrics.requestFinished();
    expect(sample(await metrics.registry.metrics(), 'gateway_s3_in_flight_requests')).toBe(0);
  });

  it('add the access cache hits gathered since the last scrape, beside its other events', async () => {
    const metrics = new GatewayMetrics({ maxOrganisationLabels: 10, defaultMetrics: false });
    const cache = metrics.cacheEventRecorder;
    cache.onHit('credential');
    cache.onHit('credential');
    cache.onMiss('credential');
    const hits = 'gateway_credential_cache_events_total{kind="credential",event="hit"}';
    const misses = 'gateway_credential_cache_events_total{kind="credential",event="miss"}';
    let text = await metrics.registry.metrics();
    expect(sample(text, hits)).toBe(2);
    expect(sample(text, misses)).toBe(1);
    expect(await metrics.registry.metrics()).toBe(text);
    cache.onHit('credential');
    text = await metrics.registry.metrics();
    expect(sample(text, hits)).toBe(3);
    expect(sample(text, misses)).toBe(1);
  });
});
