import { beforeAll, describe, expect, it } from 'vitest';
import { readYaml } from './support/compose.js';
import { expressionsOf, labelValuesQuery, loadDashboards, type DashboardLike } from './support/dashboards.js';
import { loadExportedMetrics, type ExportedMetrics } from './support/exported-metrics.js';
import { checkPromQL, parsePromQL, selectorsOf, type MetricCatalog } from './support/promql.js';

/** Every problem with the PromQL of one dashboard: unknown metrics, missing labels, syntax. */
function dashboardProblems(model: DashboardLike, catalog: MetricCatalog): string[] {
  return expressionsOf(model).flatMap(({ where, expr }) => {
    const labelValues = labelValuesQuery(expr);
    if (labelValues === null) return checkPromQL(expr, catalog).map((problem) => `${where}: ${problem}`);
    const problems = checkPromQL(labelValues.selector, catalog).map((problem) => `${where}: ${problem}`);
    for (const selector of selectorsOf(parsePromQL(labelValues.selector))) {
      const labels = catalog.get(selector.name ?? '');
      if (labels !== undefined && !labels.has(labelValues.label)) {
        problems.push(`${where}: metric ${String(selector.name)} has no label "${labelValues.label}"`);
      }
    }
    return problems;
  });
}

const dashboards = loadDashboards();
let exported: ExportedMetrics;

beforeAll(async () => {
  exported = await loadExportedMetrics();
});

describe('what the gateway exports', () => {
  it('reads the same metric families from the registry and from its text exposition', () => {
    const fromRegistry = [...exported.families].map(([name, family]) => `${name} ${family.type}`).sort();
    const fromText = [...exported.exposition].map(([name, type]) => `${name} ${type}`).sort();
    expect(fromText).toEqual(fromRegistry);
  });

  it('stores histograms only as _bucket (with le), _sum and _count, and includes the default metrics', () => {
    const { catalog } = exported;
    expect(catalog.get('gateway_s3_request_duration_seconds_bucket')).toEqual(
      new Set(['job', 'instance', 'operation', 'le']),
    );
    expect(catalog.has('gateway_s3_request_duration_seconds_sum')).toBe(true);
    expect(catalog.has('gateway_s3_request_duration_seconds')).toBe(false);
    expect(catalog.get('gateway_s3_requests_total')).toEqual(
      new Set(['job', 'instance', 'operation', 'status', 'code']),
    );
    expect(catalog.has('process_cpu_seconds_total')).toBe(true);
    expect(catalog.has('nodejs_eventloop_lag_p99_seconds')).toBe(true);
  });
});

describe('dashboard PromQL', () => {
  it('finds expressions in every dashboard', () => {
    expect(dashboards.length).toBeGreaterThanOrEqual(3);
    for (const { file, model } of dashboards) {
      expect(expressionsOf(model).length, file).toBeGreaterThan(0);
    }
  });

  it.each(dashboards.map((dashboard) => [dashboard.file, dashboard.model] as const))(
    '%s names only metrics and labels the gateway exports',
    (_file, model) => {
      expect(dashboardProblems(model, exported.catalog)).toEqual([]);
    },
  );

  it('would catch a dashboard naming a metric or label the gateway does not export', () => {
    const overview = dashboards.find((dashboard) => dashboard.file === 'overview.json');
    expect(overview).toBeDefined();
    const misspelt = JSON.parse(
      (overview?.text ?? '').replaceAll('gateway_s3_bytes_in_total', 'gateway_s3_bytes_received_total'),
    ) as DashboardLike;
    expect(dashboardProblems(misspelt, exported.catalog)).toContain(
      'panel "Bytes per second" target A: unknown metric gateway_s3_bytes_received_total',
    );
    const wrongLabel = JSON.parse(
      (overview?.text ?? '').replace(
        'sum by (kind) (rate(gateway_backend_errors_total',
        'sum by (reason) (rate(gateway_backend_errors_total',
      ),
    ) as DashboardLike;
    expect(dashboardProblems(wrongLabel, exported.catalog)).toEqual([
      'panel "Object-store errors by kind" target A: sum by (reason): no "reason" label on its argument',
    ]);
    const wrongVariable = JSON.parse(
      dashboards
        .find((dashboard) => dashboard.file === 'organisations.json')
        ?.text.replaceAll(
          'label_values(gateway_organisation_requests_total, organisation)',
          'label_values(gateway_organisation_requests_total, org)',
        ) ?? '{}',
    ) as DashboardLike;
    expect(dashboardProblems(wrongVariable, exported.catalog)).toEqual([
      'variable $organisation: metric gateway_organisation_requests_total has no label "org"',
    ]);
  });

  it('selects scrape jobs that deploy/prometheus/prometheus.yml defines', () => {
    const config = readYaml('deploy/prometheus/prometheus.yml') as {
      scrape_configs: Array<{ job_name: string }>;
    };
    const jobs = new Set(config.scrape_configs.map((scrape) => scrape.job_name));
    const used = dashboards.flatMap(({ model }) =>
      expressionsOf(model).flatMap(({ expr }) =>
        selectorsOf(parsePromQL(labelValuesQuery(expr)?.selector ?? expr)).flatMap((selector) =>
          selector.matchers.filter((matcher) => matcher.label === 'job').map((matcher) => matcher.value),
        ),
      ),
    );
    expect(used.length).toBeGreaterThan(0);
    for (const job of used) expect(jobs, `job="${job}"`).toContain(job);
  });
});
