import { beforeAll, describe, expect, it } from 'vitest';
import { readYaml } from './support/compose.js';
import { expressionsOf, labelValuesQuery, loadDashboards, type DashboardLike } from './support/dashboards.js';
import { CLOSED_LABEL_VALUES } from '../../../src/observability/metrics.js';
import { loadExportedMetrics, type ExportedMetrics } from './support/exported-metrics.js';
import { alternativesOf, gatewayValueSets, labelValueProblems } from './support/label-values.js';
import { checkPromQL, parsePromQL, selectorsOf, type MetricCatalog } from './support/promql.js';

/**
 * Every problem with the PromQL of one dashboard: unknown metrics, missing labels, syntax, and label
 * values the gateway never records.
 */
function dashboardProblems(model: DashboardLike, catalog: MetricCatalog): string[] {
  return expressionsOf(model).flatMap(({ where, expr }) => {
    const labelValues = labelValuesQuery(expr);
    if (labelValues === null) {
      const problems = checkPromQL(expr, catalog);
      if (problems.length === 0) problems.push(...labelValueProblems(expr));
      return problems.map((problem) => `${where}: ${problem}`);
    }
    const problems = [
      ...checkPromQL(labelValues.selector, catalog),
      ...labelValueProblems(labelValues.selector),
    ].map((problem) => `${where}: ${problem}`);
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

  it('names only label values the gateway records (closed sets exported next to its counters)', () => {
    // Every closed set belongs to a metric the gateway exports, with that label.
    for (const [metric, labels] of Object.entries(CLOSED_LABEL_VALUES)) {
      expect(exported.families.get(metric)?.labels, metric).toBeDefined();
      for (const [label, values] of Object.entries(labels)) {
        expect(exported.families.get(metric)?.labels.has(label), `${metric} ${label}`).toBe(true);
        expect(values.length, `${metric} ${label}`).toBeGreaterThan(0);
      }
    }
    // The dashboards do select by values of the closed sets, so the check below has something to check.
    const matched = dashboards.flatMap(({ model }) =>
      expressionsOf(model).flatMap(({ expr }) =>
        selectorsOf(parsePromQL(labelValuesQuery(expr)?.selector ?? expr)).flatMap((selector) =>
          selector.matchers
            .filter(
              (matcher) =>
                gatewayValueSets()
                  .get(selector.name ?? '')
                  ?.has(matcher.label) === true,
            )
            .map((matcher) => `${String(selector.name)} ${matcher.label}`),
        ),
      ),
    );
    expect(new Set(matched)).toEqual(
      new Set([
        'gateway_s3_refusals_total reason',
        'gateway_logins_total outcome',
        'gateway_token_refreshes_total outcome',
        'gateway_credential_cache_events_total event',
        'gateway_s3_requests_total status',
        'gateway_s3_requests_total code',
        'gateway_control_requests_total status',
      ]),
    );
  });

  it('would catch a dashboard selecting a label value the gateway does not record', () => {
    const problemsAfter = (from: string, to: string) => {
      const changed = dashboards.filter((dashboard) => dashboard.text.includes(from));
      expect(changed.length, from).toBeGreaterThan(0);
      return changed.flatMap((dashboard) =>
        dashboardProblems(JSON.parse(dashboard.text.replaceAll(from, to)) as DashboardLike, exported.catalog),
      );
    };
    expect(
      problemsAfter('reason=~\\"signature|unknown_key\\"', 'reason=~\\"signature|unknown_keys\\"'),
    ).toEqual([
      expect.stringContaining(
        'gateway_s3_refusals_total{reason=~"signature|unknown_keys"}: "unknown_keys" matches no value of label "reason"',
      ),
    ]);
    expect(problemsAfter('outcome=\\"failed\\"', 'outcome=\\"failure\\"').length).toBeGreaterThan(0);
    expect(problemsAfter('outcome=\\"reuse_detected\\"', 'outcome=\\"reused\\"')).toEqual([
      expect.stringContaining('"reused" is not a value of label "outcome"'),
    ]);
    expect(problemsAfter('event=\\"hit\\"', 'event=\\"hits\\"')).toEqual([
      expect.stringContaining('"hits" is not a value of label "event"'),
    ]);
    expect(problemsAfter('organisation=\\"_other\\"', 'organisation=\\"other\\"')).toEqual([
      expect.stringContaining('"other" is not a value of label "organisation" (only "_other" or a variable)'),
    ]);
    expect(problemsAfter('status=~\\"5..\\"', 'status=~\\"5xx\\"')).toEqual([
      expect.stringContaining('"5xx" matches no value of label "status"'),
    ]);
  });

  it('splits regular expressions into their top-level alternatives', () => {
    expect(alternativesOf('signature|unknown_key')).toEqual(['signature', 'unknown_key']);
    expect(alternativesOf('a(b|c)|[|]|d\\|e')).toEqual(['a(b|c)', '[|]', 'd\\|e']);
    expect(labelValueProblems('gateway_logins_total{outcome=~"succ.*|rate_limited"}')).toEqual([]);
    expect(labelValueProblems('gateway_logins_total{outcome!="$outcome"}')).toEqual([]);
    expect(labelValueProblems('gateway_logins_total{outcome!="nope"}')).toEqual([
      'gateway_logins_total{outcome!="nope"}: "nope" is not a value of label "outcome"',
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
