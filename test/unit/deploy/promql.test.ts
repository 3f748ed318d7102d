import { describe, expect, it } from 'vitest';
import {
  checkPromQL,
  metricNamesOf,
  parsePromQL,
  PromQLSyntaxError,
  type MetricCatalog,
} from './support/promql.js';

const catalog: MetricCatalog = new Map([
  ['gateway_s3_requests_total', new Set(['job', 'instance', 'operation', 'status', 'code'])],
  ['gateway_s3_request_duration_seconds_bucket', new Set(['job', 'instance', 'operation', 'le'])],
  ['gateway_s3_request_duration_seconds_count', new Set(['job', 'instance', 'operation'])],
  ['gateway_credential_cache_events_total', new Set(['job', 'instance', 'kind', 'event'])],
  ['up', new Set(['job', 'instance'])],
]);

describe('metric-name extraction', () => {
  it('reports a metric the service does not export', () => {
    expect(metricNamesOf('rate(gateway_nope_total[5m])')).toEqual(['gateway_nope_total']);
    expect(checkPromQL('rate(gateway_nope_total[5m])', catalog)).toEqual([
      'unknown metric gateway_nope_total',
    ]);
  });

  it('does not mistake functions, keywords, labels, strings or durations for metrics', () => {
    const expr =
      'sum by (code, operation) (rate(gateway_s3_requests_total{code!="NoSuchKey", operation=~"Get.*|up"}[5m] offset 1h)) > bool 0';
    expect(metricNamesOf(expr)).toEqual(['gateway_s3_requests_total']);
    expect(checkPromQL(expr, catalog)).toEqual([]);
  });

  it('reads grouping written after the argument, vector matching and both sides of operators', () => {
    expect(metricNamesOf('sum(rate(a_total[5m])) by (job) / on (job) group_left (version) b_info')).toEqual([
      'a_total',
      'b_info',
    ]);
  });

  it('finds metrics inside subqueries, nested calls and {__name__="…"} selectors', () => {
    expect(metricNamesOf('max_over_time(rate(x_total[5m])[1h:1m]) + {__name__="y_seconds_count"}')).toEqual([
      'x_total',
      'y_seconds_count',
    ]);
  });

  it("accepts Grafana's interval variables and variables inside label values", () => {
    expect(
      checkPromQL('sum(rate(gateway_s3_requests_total{instance=~"$instance"}[$__rate_interval]))', catalog),
    ).toEqual([]);
    expect(metricNamesOf('increase(up[$__range])')).toEqual(['up']);
  });

  it('rejects what is not PromQL', () => {
    expect(() => parsePromQL('rate(gateway_s3_requests_total[$window])')).toThrow(PromQLSyntaxError);
    expect(() => parsePromQL('sum(rate(gateway_s3_requests_total[5m])')).toThrow(PromQLSyntaxError);
    expect(() => parsePromQL('gateway_s3_requests_total{code="x"')).toThrow(PromQLSyntaxError);
    expect(() => parsePromQL('rate(sum(up)[5m])')).toThrow(/subquery/);
    expect(checkPromQL('ratee(up[5m])', catalog)).toEqual(['syntax: unknown function ratee()']);
  });

  it('respects operator precedence and associativity', () => {
    expect(parsePromQL('1 + 2 * 3')).toMatchObject({
      kind: 'binary',
      op: '+',
      rhs: { kind: 'binary', op: '*' },
    });
    expect(parsePromQL('2 ^ 3 ^ 2')).toMatchObject({
      kind: 'binary',
      op: '^',
      rhs: { kind: 'binary', op: '^' },
    });
    expect(parsePromQL('a - b - c')).toMatchObject({
      kind: 'binary',
      op: '-',
      lhs: { kind: 'binary', op: '-' },
    });
    expect(parsePromQL('-2 ^ 2')).toMatchObject({ kind: 'unary', expr: { kind: 'binary', op: '^' } });
  });
});

describe('label checks', () => {
  it('reports a label matcher the metric does not have', () => {
    expect(checkPromQL('gateway_s3_requests_total{reason="scope"}', catalog)).toEqual([
      'metric gateway_s3_requests_total has no label "reason"',
    ]);
  });

  it('reports grouping by a label that is not on the argument', () => {
    expect(checkPromQL('sum by (reason) (rate(gateway_s3_requests_total[5m]))', catalog)).toEqual([
      'sum by (reason): no "reason" label on its argument',
    ]);
  });

  it('knows that an inner aggregation drops labels', () => {
    expect(checkPromQL('max by (code) (sum by (operation) (gateway_s3_requests_total))', catalog)).toEqual([
      'max by (code): no "code" label on its argument',
    ]);
    expect(
      checkPromQL('max by (code) (sum without (operation) (gateway_s3_requests_total))', catalog),
    ).toEqual([]);
  });

  it('requires "le" for histogram_quantile', () => {
    expect(
      checkPromQL(
        'histogram_quantile(0.99, sum by (le) (rate(gateway_s3_request_duration_seconds_bucket[5m])))',
        catalog,
      ),
    ).toEqual([]);
    expect(
      checkPromQL(
        'histogram_quantile(0.99, sum by (operation) (rate(gateway_s3_request_duration_seconds_bucket[5m])))',
        catalog,
      ),
    ).toEqual(['histogram_quantile needs a "le" label: aggregate _bucket series with "by (le, ...)"']);
  });

  it('reports one-to-one operations whose sides carry different labels', () => {
    const ratio = (by: string) =>
      `sum by (kind) (rate(gateway_credential_cache_events_total{event="hit"}[5m])) / sum ${by} (rate(gateway_credential_cache_events_total[5m]))`;
    expect(checkPromQL(ratio('by (kind)'), catalog)).toEqual([]);
    expect(checkPromQL(ratio(''), catalog)).toEqual([
      '"/" joins series with different labels (kind vs none): no series would match',
    ]);
    expect(
      checkPromQL(
        'sum by (kind, event) (gateway_credential_cache_events_total) / on (kind) group_left sum by (kind) (gateway_credential_cache_events_total)',
        catalog,
      ),
    ).toEqual([]);
    expect(checkPromQL('60 * sum by (code) (rate(gateway_s3_requests_total[5m]))', catalog)).toEqual([]);
  });

  it('reports joining on a label one side lacks', () => {
    expect(
      checkPromQL(
        'sum by (code) (gateway_s3_requests_total) / on (code) sum by (operation) (gateway_s3_requests_total)',
        catalog,
      ),
    ).toEqual(['/ on (code): "code" is missing on one side']);
  });
});
