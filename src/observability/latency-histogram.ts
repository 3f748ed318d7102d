/**
 * A latency histogram with one label (the S3 operation), exported exactly as prom-client's
 * Histogram exports the same observations: the same _bucket, _sum and _count series, in the text
 * exposition and in the JSON a cluster's workers send for aggregation. Observing costs a map
 * lookup and a scan of the bounds. prom-client's Histogram builds and checks a key from the labels
 * and finds the bucket through a string key on every observation; the three latency histograms of
 * a storage request cost 3.4% of a presigned 4 KiB GET's CPU that way (BENCHMARKS.md, change 18).
 */
import type { Metric, Registry } from 'prom-client';

interface Series {
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export interface LatencyHistogramOptions {
  readonly name: string;
  readonly help: string;
  readonly labelName: string;
  /** Upper bounds in seconds, increasing. */
  readonly buckets: readonly number[];
  readonly registers: readonly Registry[];
}

/** One sample, as prom-client's metrics give theirs from get(). */
interface Sample {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
  readonly metricName: string;
}

/**
 * What get() gives, the shape of prom-client's own (its declared types say `type` is a number; at
 * run time it is the name the exposition prints).
 */
interface Exported {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly aggregator: 'sum';
  readonly values: readonly Sample[];
}

export class LatencyHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  /** How a cluster's processes combine (AggregatorRegistry): bucket by bucket, summed. */
  readonly aggregator = 'sum';
  readonly labelNames: readonly string[];
  readonly #labelName: string;
  readonly #bounds: readonly number[];
  /** Per label value, in the order first observed (the order prom-client exports them in). */
  readonly #series = new Map<string, Series>();

  constructor(options: LatencyHistogramOptions) {
    const bounds = [...options.buckets];
    if (bounds.some((bound, index) => index > 0 && bound <= (bounds[index - 1] as number)))
      throw new Error(`${options.name}: bucket bounds must increase`);
    this.name = options.name;
    this.help = options.help;
    this.#labelName = options.labelName;
    this.labelNames = [options.labelName];
    this.#bounds = bounds;
    // The registry reads only name, help, type and get() (its text and JSON expositions fall back
    // to get()), but its types list only prom-client's own metric classes.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** One observation of `seconds` for the label value `label`; a value that is not finite is ignored. */
  observe(label: string, seconds: number): void {
    if (!Number.isFinite(seconds)) return;
    let series = this.#series.get(label);
    if (series === undefined) {
      series = { counts: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 };
      this.#series.set(label, series);
    }
    const bounds = this.#bounds;
    let index = 0;
    while (index < bounds.length && seconds > (bounds[index] as number)) index += 1;
    series.counts[index] = (series.counts[index] ?? 0) + 1;
    series.sum += seconds;
    series.count += 1;
  }

  /** The series as prom-client's Histogram gives them: per label value its buckets, +Inf, _sum, _count. */
  get(): Promise<Exported> {
    const values: Sample[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const [label, series] of this.#series) {
      let cumulative = 0;
      this.#bounds.forEach((bound, index) => {
        cumulative += series.counts[index] ?? 0;
        values.push({
          labels: { le: bound, [this.#labelName]: label },
          value: cumulative,
          metricName: bucketName,
        });
      });
      values.push(
        { labels: { le: '+Inf', [this.#labelName]: label }, value: series.count, metricName: bucketName },
        { labels: { [this.#labelName]: label }, value: series.sum, metricName: `${this.name}_sum` },
        { labels: { [this.#labelName]: label }, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }

  /** Forgets every observation (Registry.resetMetrics). */
  reset(): void {
    this.#series.clear();
  }
}
