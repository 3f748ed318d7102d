import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_ORGANISATION_LABELS,
  GatewayMetrics,
  ORGANISATION_OVERFLOW_LABEL,
  OrganisationLabels,
  organisationLabelValue,
} from '../../../src/observability/metrics.js';

/** The organisation label values of gateway_organisation_requests_total with their counts. */
async function requestSeries(metrics: GatewayMetrics): Promise<Record<string, number>> {
  const family = await metrics.organisationRequests.get();
  return Object.fromEntries(family.values.map((value) => [String(value.labels.organisation), value.value]));
}

describe('the per-organisation label', () => {
  it('gives the first N organisations their own series and puts organisation N+1 in the overflow series', async () => {
    const metrics = new GatewayMetrics({ maxOrganisationLabels: 3, defaultMetrics: false });
    for (const name of ['acme', 'globex', 'initech', 'umbrella', 'acme', 'hooli']) {
      metrics.organisationRequests.inc({ organisation: metrics.organisationLabels.label(name) });
    }
    expect(await requestSeries(metrics)).toEqual({
      acme: 2,
      globex: 1,
      initech: 1,
      [ORGANISATION_OVERFLOW_LABEL]: 2,
    });
  });

  it('keeps an organisation that got its own series, however many come after it', () => {
    const labels = new OrganisationLabels(2);
    expect(labels.label('first')).toBe('first');
    expect(labels.label('second')).toBe('second');
    for (let index = 0; index < 100; index += 1) {
      expect(labels.label(`later-${index}`)).toBe(ORGANISATION_OVERFLOW_LABEL);
    }
    expect(labels.label('first')).toBe('first');
    expect(labels.label('second')).toBe('second');
  });

  it('never gives an organisation the overflow value, whatever its name', () => {
    expect(ORGANISATION_OVERFLOW_LABEL).toBe('_other');
    const labels = new OrganisationLabels(10);
    expect(labels.label('other')).toBe('other');
    expect(labels.label('_other')).toBe('__other');
    expect(labels.label('__other')).toBe('___other');
    expect(labels.label('_')).toBe('__');
    for (const name of ['other', '_other', 'Other', '_Other', 'x']) {
      expect(organisationLabelValue(name)).not.toBe(ORGANISATION_OVERFLOW_LABEL);
    }
  });

  it('counts an escaped name once against the limit', () => {
    const labels = new OrganisationLabels(1);
    expect(labels.label('_internal')).toBe('__internal');
    expect(labels.label('_internal')).toBe('__internal');
    expect(labels.label('next')).toBe(ORGANISATION_OVERFLOW_LABEL);
  });

  it('takes its limit from the constructor, 50 by default, and puts everyone in the overflow with 0', () => {
    expect(new GatewayMetrics({ defaultMetrics: false }).organisationLabels.limit).toBe(
      DEFAULT_MAX_ORGANISATION_LABELS,
    );
    expect(DEFAULT_MAX_ORGANISATION_LABELS).toBe(50);
    const none = new OrganisationLabels(0);
    expect(none.label('acme')).toBe(ORGANISATION_OVERFLOW_LABEL);
    expect(() => new OrganisationLabels(-1)).toThrow(RangeError);
  });

  it('describes itself truthfully in its help text', async () => {
    const metrics = new GatewayMetrics({ defaultMetrics: false });
    const text = await metrics.registry.metrics();
    const help = text
      .split('\n')
      .find((line) => line.startsWith('# HELP gateway_organisation_requests_total'));
    expect(help).toContain(`"${ORGANISATION_OVERFLOW_LABEL}"`);
    expect(help).toContain('GATEWAY_METRICS_MAX_ORGANISATIONS');
    expect(help).not.toMatch(/busiest/);
  });
});
