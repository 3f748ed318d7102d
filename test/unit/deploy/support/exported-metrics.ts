import { GatewayMetrics } from '../../../../src/observability/metrics.js';
import type { MetricCatalog } from './promql.js';

/** Labels Prometheus attaches to every scraped series. */
export const TARGET_LABELS = ['job', 'instance'] as const;

/** Series Prometheus itself records for each scrape target; dashboards may use them (e.g. `up`). */
export const SCRAPE_SERIES = [
  'up',
  'scrape_duration_seconds',
  'scrape_samples_scraped',
  'scrape_samples_post_metric_relabeling',
  'scrape_series_added',
] as const;

export interface ExportedMetrics {
  /** Series name → label names, as Prometheus will store them after scraping the gateway. */
  catalog: MetricCatalog;
  /** Metric families as the registry declares them (histograms by their base name). */
  families: ReadonlyMap<string, { type: string; labels: ReadonlySet<string> }>;
  /** Family names and their types read back from the text exposition (`# TYPE` lines). */
  exposition: ReadonlyMap<string, string>;
}

/** Parses `# TYPE name type` lines and sample lines of the Prometheus text format. */
export function parseExposition(text: string): {
  types: Map<string, string>;
  samples: Map<string, Set<string>>;
} {
  const types = new Map<string, string>();
  const samples = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/.exec(line);
    if (type) {
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s/.exec(line);
    if (!sample) throw new Error(`unparseable exposition line: ${line}`);
    const labels = samples.get(sample[1] as string) ?? new Set<string>();
    for (const match of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g))
      labels.add(match[1] as string);
    samples.set(sample[1] as string, labels);
  }
  return { types, samples };
}

/**
 * Everything the gateway's /metrics endpoint can expose, derived from a real GatewayMetrics (default
 * process and Node.js metrics included): the registry's JSON view and label definitions, cross-read
 * with its text exposition. Histograms exist in Prometheus only as _bucket (with "le"), _sum and
 * _count; summaries as the base name (with "quantile"), _sum and _count.
 */
export async function loadExportedMetrics(): Promise<ExportedMetrics> {
  const metrics = new GatewayMetrics();
  // Observe one value per histogram so the text exposition carries their _bucket/_sum/_count samples.
  metrics.s3Duration.observe('GetObject', 0.01);
  const json = await metrics.registry.getMetricsAsJSON();
  const text = await metrics.registry.metrics();

  const families = new Map<string, { type: string; labels: Set<string> }>();
  for (const family of json) {
    const declared = (metrics.registry.getSingleMetric(family.name) as unknown as { labelNames?: string[] })
      ?.labelNames;
    const labels = new Set<string>(declared ?? []);
    for (const value of family.values) {
      for (const label of Object.keys(value.labels))
        if (label !== 'le' && label !== 'quantile') labels.add(label);
    }
    families.set(family.name, { type: String(family.type), labels });
  }

  const { types, samples } = parseExposition(text);
  const catalog = new Map<string, Set<string>>();
  const add = (name: string, labels: Iterable<string>) => {
    const set = catalog.get(name) ?? new Set<string>(TARGET_LABELS);
    for (const label of labels) set.add(label);
    catalog.set(name, set);
  };
  for (const [name, family] of families) {
    if (family.type === 'histogram') {
      add(`${name}_bucket`, [...family.labels, 'le']);
      add(`${name}_sum`, family.labels);
      add(`${name}_count`, family.labels);
    } else if (family.type === 'summary') {
      add(name, [...family.labels, 'quantile']);
      add(`${name}_sum`, family.labels);
      add(`${name}_count`, family.labels);
    } else {
      add(name, family.labels);
    }
  }
  // The text exposition is what Prometheus really scrapes: every sample name in it is a series.
  for (const [name, labels] of samples) add(name, labels);
  for (const name of SCRAPE_SERIES) add(name, []);

  return { catalog, families, exposition: types };
}
