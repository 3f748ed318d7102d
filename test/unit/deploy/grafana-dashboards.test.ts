import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import {
  commandArgs,
  hostPathOf,
  loadCompose,
  mounts,
  portMappings,
  readYaml,
  repoPath,
} from './support/compose.js';
import {
  allPanels,
  DASHBOARD_DIR,
  dashboardFiles,
  expressionsOf,
  loadDashboards,
  loadProviders,
  PROVISIONING_DIR,
  variableQuery,
  type DashboardLike,
  type PanelLike,
} from './support/dashboards.js';

const DATASOURCE_REF = { type: 'prometheus', uid: '${datasource}' };
const PANEL_TYPES = ['timeseries', 'stat', 'bargauge', 'table', 'gauge', 'text'] as const;

const int = z.number().int();
const gridPos = z
  .object({ x: int.min(0), y: int.min(0), w: int.min(1).max(24), h: int.min(1) })
  .refine((grid) => grid.x + grid.w <= 24, 'the panel extends beyond the 24 grid columns');
const datasourceRef = z.object({ type: z.literal('prometheus'), uid: z.literal('${datasource}') });
const target = z.looseObject({
  refId: z.string().regex(/^[A-Z]+$/),
  expr: z.string().trim().min(1),
  datasource: datasourceRef.optional(),
});
const dataPanel = z.looseObject({
  id: int.positive(),
  type: z.enum(PANEL_TYPES),
  title: z.string().trim().min(1),
  description: z.string().trim().min(1),
  gridPos,
  datasource: datasourceRef,
  targets: z.array(target).min(1),
  fieldConfig: z.looseObject({ defaults: z.looseObject({}), overrides: z.array(z.unknown()) }),
  options: z.looseObject({}),
});
const rowPanel = z.looseObject({
  id: int.positive(),
  type: z.literal('row'),
  title: z.string().trim().min(1),
  gridPos,
  collapsed: z.boolean(),
  panels: z.array(dataPanel),
});
const variable = z.union([
  z.looseObject({
    name: z.literal('datasource'),
    type: z.literal('datasource'),
    query: z.literal('prometheus'),
  }),
  z.looseObject({
    name: z.string().regex(/^[a-z_]+$/),
    type: z.literal('query'),
    datasource: datasourceRef,
    definition: z.string().min(1),
    query: z.looseObject({ query: z.string().min(1) }),
    refresh: z.union([z.literal(1), z.literal(2)]),
  }),
]);
const dashboardModel = z.looseObject({
  uid: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/),
  title: z.string().trim().min(1),
  description: z.string().trim().min(1),
  tags: z.array(z.string().min(1)).min(1),
  schemaVersion: int.min(36),
  // Provisioned dashboards are identified by uid; a fixed numeric id would clash across instances.
  id: z.null().optional(),
  editable: z.boolean(),
  time: z.object({ from: z.string().min(1), to: z.string().min(1) }),
  templating: z.object({ list: z.array(variable).min(1) }),
  panels: z.array(z.union([rowPanel, dataPanel])).min(1),
});

const dashboards = loadDashboards();
const byUid = new Map(dashboards.map((dashboard) => [dashboard.model.uid, dashboard.model]));

function overlaps(a: PanelLike, b: PanelLike): boolean {
  const p = a.gridPos as { x: number; y: number; w: number; h: number };
  const q = b.gridPos as { x: number; y: number; w: number; h: number };
  return p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;
}

/** `$name` and `${name}` references outside Grafana's own `$__…` variables. */
function variableReferences(text: string): string[] {
  return [...text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)]
    .map((match) => match[1] as string)
    .filter((name) => !name.startsWith('__'));
}

describe('dashboard models', () => {
  it('has the overview, security and per-organisation dashboards', () => {
    expect(dashboards.map((dashboard) => dashboard.model.uid).sort()).toEqual([
      's3-gateway-organisations',
      's3-gateway-overview',
      's3-gateway-security',
    ]);
  });

  it.each(dashboards.map((dashboard) => [dashboard.file, dashboard.model] as const))(
    '%s is a valid dashboard model',
    (_file, model) => {
      const result = dashboardModel.safeParse(model);
      expect(
        result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
      ).toEqual([]);
    },
  );

  it('uses uids and titles no other dashboard uses', () => {
    const uids = dashboards.map((dashboard) => dashboard.model.uid);
    const titles = dashboards.map((dashboard) => dashboard.model.title);
    expect(new Set(uids).size).toBe(uids.length);
    expect(new Set(titles).size).toBe(titles.length);
  });

  it.each(dashboards.map((dashboard) => [dashboard.file, dashboard.model] as const))(
    '%s: panel ids and target refIds are unique and panels do not overlap',
    (_file, model) => {
      const panels = allPanels(model);
      const ids = panels.map((panel) => panel.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const panel of panels) {
        const refIds = (panel.targets ?? []).map((item) => item.refId);
        expect(new Set(refIds).size, String(panel.title)).toBe(refIds.length);
      }
      const top = model.panels ?? [];
      for (const [index, panel] of top.entries()) {
        for (const other of top.slice(index + 1)) {
          expect(overlaps(panel, other), `"${String(panel.title)}" overlaps "${String(other.title)}"`).toBe(
            false,
          );
        }
      }
    },
  );

  it.each(dashboards.map((dashboard) => [dashboard.file, dashboard.model] as const))(
    '%s: every panel queries the $datasource variable, and every variable used is defined',
    (_file, model: DashboardLike) => {
      const defined = new Set((model.templating?.list ?? []).map((item) => String(item.name)));
      expect(defined).toContain('datasource');
      for (const panel of allPanels(model).filter((item) => item.type !== 'row')) {
        expect(panel.datasource, String(panel.title)).toEqual(DATASOURCE_REF);
      }
      const used = [
        ...expressionsOf(model).flatMap(({ expr }) => variableReferences(expr)),
        ...variableReferences(JSON.stringify(allPanels(model).map((panel) => panel.datasource))),
      ];
      for (const name of used) expect(defined, `$${name}`).toContain(name);
      for (const item of model.templating?.list ?? []) {
        if (item.type === 'query') expect(item.definition, String(item.name)).toBe(variableQuery(item));
      }
    },
  );

  it('covers what the issue asks of each dashboard', () => {
    const metricsOf = (uid: string) =>
      expressionsOf(byUid.get(uid) ?? {})
        .map(({ expr }) => expr)
        .join('\n');
    const overview = metricsOf('s3-gateway-overview');
    for (const metric of [
      'gateway_s3_requests_total',
      'gateway_s3_request_duration_seconds_bucket',
      'gateway_s3_bytes_out_total',
      'gateway_backend_request_duration_seconds_bucket',
      'gateway_backend_errors_total',
      'gateway_credential_cache_events_total',
    ]) {
      expect(overview).toContain(metric);
    }
    expect(overview).toMatch(/sum by \(code\) \(rate\(gateway_s3_requests_total/);
    const security = metricsOf('s3-gateway-security');
    expect(security).toMatch(/sum by \(reason\) \(rate\(gateway_s3_refusals_total/);
    expect(security).toMatch(/gateway_logins_total\{[^}]*outcome="failed"/);

    const organisations = byUid.get('s3-gateway-organisations');
    const organisation = organisations?.templating?.list?.find((item) => item.name === 'organisation');
    expect(organisation && variableQuery(organisation)).toBe(
      'label_values(gateway_organisation_requests_total, organisation)',
    );
    const perOrganisation = expressionsOf(organisations ?? {}).filter(({ where }) =>
      where.startsWith('panel'),
    );
    expect(
      perOrganisation.filter(({ expr }) => expr.includes('organisation=~"$organisation"')).length,
    ).toBeGreaterThan(perOrganisation.length / 2);
  });
});

describe('Grafana provisioning', () => {
  const compose = loadCompose();
  const grafana = compose.services.grafana;
  const providers = loadProviders();

  it('mounts grafana/provisioning where Grafana reads provisioning files', () => {
    expect(grafana).toBeDefined();
    const mount = mounts(grafana ?? {}).find((item) => item.target === '/etc/grafana/provisioning');
    expect(mount?.type).toBe('bind');
    expect(path.resolve(repoPath(mount?.source ?? ''))).toBe(path.resolve(repoPath(PROVISIONING_DIR)));
    expect(readdirSync(repoPath(PROVISIONING_DIR, 'dashboards')).some((file) => file.endsWith('.yml'))).toBe(
      true,
    );
    expect(readdirSync(repoPath(PROVISIONING_DIR, 'datasources')).some((file) => file.endsWith('.yml'))).toBe(
      true,
    );
  });

  it('loads every dashboard file through a file provider in the "S3 gateway" folder', () => {
    expect(providers.length).toBeGreaterThan(0);
    const loaded = new Set<string>();
    for (const { file, provider } of providers) {
      expect(provider.type, file).toBe('file');
      expect(provider.folder, file).toBe('S3 gateway');
      expect(path.posix.isAbsolute(provider.options.path), file).toBe(true);
      const hostDir = hostPathOf(grafana ?? {}, provider.options.path);
      expect(hostDir, `${provider.options.path} is not mounted into the grafana service`).not.toBeNull();
      expect(existsSync(hostDir ?? '')).toBe(true);
      for (const json of readdirSync(hostDir ?? '').filter((name) => name.endsWith('.json'))) {
        loaded.add(path.resolve(hostDir ?? '', json));
      }
    }
    const files = dashboardFiles().map((file) => path.resolve(repoPath(DASHBOARD_DIR, file)));
    for (const file of files) expect(loaded, file).toContain(file);
  });

  it('opens an existing dashboard as the home dashboard', () => {
    const env = (grafana?.environment ?? {}) as Record<string, string>;
    const home = env.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH;
    expect(home).toBeDefined();
    const hostFile = hostPathOf(grafana ?? {}, home ?? '');
    expect(hostFile !== null && existsSync(hostFile)).toBe(true);
  });

  it('points the default Prometheus data source at the compose Prometheus service', () => {
    const dir = path.join(PROVISIONING_DIR, 'datasources');
    const datasources = readdirSync(repoPath(dir))
      .filter((file) => /\.ya?ml$/.test(file))
      .flatMap(
        (file) =>
          (
            parse(readFileSync(repoPath(dir, file), 'utf8')) as {
              datasources?: Array<Record<string, unknown>>;
            }
          ).datasources ?? [],
      );
    const prometheus = datasources.filter((source) => source.type === 'prometheus');
    expect(prometheus).toHaveLength(1);
    const source = prometheus[0] ?? {};
    expect(source.isDefault).toBe(true);
    const url = new URL(String(source.url));
    const service = compose.services[url.hostname];
    expect(service, `no compose service called ${url.hostname}`).toBeDefined();
    expect(service?.image).toMatch(/^prom\/prometheus:/);
    const listen = commandArgs(service?.command).find((arg) => arg.startsWith('--web.listen-address='));
    const port = listen === undefined ? 9090 : Number(listen.split(':').pop());
    expect(Number(url.port)).toBe(port);
    expect(portMappings(service ?? {}).map((mapping) => mapping.target)).toContain(port);

    const config = readYaml('deploy/prometheus/prometheus.yml') as { global: { scrape_interval: string } };
    expect((source.jsonData as { timeInterval?: string }).timeInterval).toBe(config.global.scrape_interval);
  });

  it('documents every dashboard in grafana/README.md', () => {
    const readme = readFileSync(repoPath('grafana/README.md'), 'utf8');
    expect(readme).toContain('S3 gateway');
    expect(readme).toContain('http://localhost:3000');
    for (const { model } of dashboards) {
      expect(readme).toContain(String(model.title));
      for (const panel of allPanels(model).filter((item) => item.type === 'row')) {
        expect(readme, `row "${String(panel.title)}" of ${String(model.title)}`).toContain(
          String(panel.title),
        );
      }
    }
  });
});
