import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from '../../../src/observability/latency-histogram.js';

const BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const OPTIONS = { name: 'test_latency_seconds', help: 'Latency of a test, by operation.', buckets: BUCKETS };

/** The same observations recorded by prom-client's Histogram and by ours, each in a registry of its own. */
function both(observations: readonly (readonly [string, number])[]) {
  const reference = new Registry();
  const ours = new Registry();
  const histogram = new Histogram({ ...OPTIONS, labelNames: ['operation'], registers: [reference] });
  const latency = new LatencyHistogram({ ...OPTIONS, labelName: 'operation', registers: [ours] });
  for (const [operation, seconds] of observations) {
    histogram.observe({ operation }, seconds);
    latency.observe(operation, seconds);
  }
  return { reference, ours, latency };
}

// On a bound, between bounds, below the first, above the last, and three operations interleaved.
const OBSERVATIONS: readonly (readonly [string, number])[] = [
  ['GetObject', 0.0001],
  ['GetObject', 0.002],
  ['PutObject', 0.0021],
  ['GetObject', 0.013],
  ['HeadObject', 60],
  ['PutObject', 61.5],
  ['GetObject', 0.3],
  ['PutObject', 0.3],
  ['GetObject', 0.1],
];

describe('LatencyHistogram', () => {
  it('exports the text prom-client exports for the same observations', async () => {
    const { reference, ours } = both(OBSERVATIONS);
    const text = await ours.metrics();
    expect(text).toBe(await reference.metrics());
    expect(text).toContain('test_latency_seconds_bucket{le="0.002",operation="GetObject"} 2');
    expect(text).toContain('test_latency_seconds_bucket{le="60",operation="PutObject"} 2');
    expect(text).toContain('test_latency_seconds_bucket{le="+Inf",operation="PutObject"} 3');
    expect(text).toContain('test_latency_seconds_count{operation="HeadObject"} 1');
  });

  it('exports nothing before its first observation, like a labelled prom-client histogram', async () => {
    const { reference, ours } = both([]);
    expect(await ours.metrics()).toBe(await reference.metrics());
  });

  it("adds up the workers' figures in a cluster's scrape as prom-client's histograms add up", async () => {
    const first = both(OBSERVATIONS.slice(0, 5));
    const second = both(OBSERVATIONS.slice(5));
    const aggregate = async (pick: 'reference' | 'ours') =>
      AggregatorRegistry.aggregate([
        await first[pick].getMetricsAsJSON(),
        await second[pick].getMetricsAsJSON(),
      ]).metrics();
    const text = await aggregate('ours');
    expect(text).toBe(await aggregate('reference'));
    expect(text).toContain('test_latency_seconds_count{operation="GetObject"} 5');
  });

  it('ignores a value that is not finite and forgets everything on reset', async () => {
    const { ours, latency } = both([['GetObject', 0.01]]);
    latency.observe('GetObject', Number.NaN);
    latency.observe('GetObject', Number.POSITIVE_INFINITY);
    expect(await ours.metrics()).toContain('test_latency_seconds_count{operation="GetObject"} 1');
    ours.resetMetrics();
    expect(await ours.metrics()).not.toContain('test_latency_seconds_count');
  });

  it('refuses bounds that do not increase', () => {
    expect(
      () => new LatencyHistogram({ ...OPTIONS, buckets: [0.1, 0.1], labelName: 'operation', registers: [] }),
    ).toThrow(/must increase/);
  });
});
