/**
 * Reading a gateway's Prometheus metrics in tests. Counters only grow and other tests in a file move
 * them too, so a test reads one before and after what it does and asserts the exact difference.
 */

/** One scrape of the metrics listener. */
export async function scrapeMetrics(metricsUrl: string): Promise<string> {
  return (await fetch(`${metricsUrl}/metrics`)).text();
}

/** The value of one series (`name{labels}` exactly as exported), 0 when it has not been created yet. */
export function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** How much each series moved between two scrapes. */
export function metricDeltas(
  before: string,
  after: string,
  series: readonly string[],
): Record<string, number> {
  return Object.fromEntries(
    series.map((name) => [name, metricValue(after, name) - metricValue(before, name)]),
  );
}
