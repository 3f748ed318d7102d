import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { repoPath } from './compose.js';

export const DASHBOARD_DIR = 'grafana/dashboards';
export const PROVISIONING_DIR = 'grafana/provisioning';

export interface PanelLike {
  id?: unknown;
  type?: unknown;
  title?: unknown;
  panels?: PanelLike[];
  targets?: Array<{ refId?: unknown; expr?: unknown }>;
  [key: string]: unknown;
}

export interface DashboardLike {
  uid?: unknown;
  title?: unknown;
  panels?: PanelLike[];
  templating?: { list?: Array<Record<string, unknown>> };
  [key: string]: unknown;
}

export interface DashboardFile {
  file: string;
  text: string;
  model: DashboardLike;
}

export function dashboardFiles(): string[] {
  return readdirSync(repoPath(DASHBOARD_DIR))
    .filter((file) => file.endsWith('.json'))
    .sort();
}

export function loadDashboards(): DashboardFile[] {
  return dashboardFiles().map((file) => {
    const text = readFileSync(repoPath(DASHBOARD_DIR, file), 'utf8');
    return { file, text, model: JSON.parse(text) as DashboardLike };
  });
}

/** Every panel, the panels of rows included. */
export function allPanels(model: DashboardLike): PanelLike[] {
  return (model.panels ?? []).flatMap((panel) => [panel, ...(panel.panels ?? [])]);
}

/** The query of a template variable: a string, or `{ query }` in newer Grafana versions. */
export function variableQuery(variable: Record<string, unknown>): string | null {
  const query = variable.query;
  if (typeof query === 'string') return query;
  if (
    typeof query === 'object' &&
    query !== null &&
    typeof (query as { query?: unknown }).query === 'string'
  ) {
    return (query as { query: string }).query;
  }
  return null;
}

export interface Expression {
  where: string;
  expr: string;
}

/** Every PromQL expression of a dashboard: panel targets and `label_values(<selector>, label)` queries. */
export function expressionsOf(model: DashboardLike): Expression[] {
  const expressions: Expression[] = [];
  for (const panel of allPanels(model)) {
    for (const target of panel.targets ?? []) {
      if (typeof target.expr === 'string') {
        expressions.push({
          where: `panel "${String(panel.title)}" target ${String(target.refId)}`,
          expr: target.expr,
        });
      }
    }
  }
  for (const variable of model.templating?.list ?? []) {
    if (variable.type !== 'query') continue;
    const query = variableQuery(variable);
    if (query !== null) expressions.push({ where: `variable $${String(variable.name)}`, expr: query });
  }
  return expressions;
}

/** Splits Grafana's `label_values(selector, label)` into its parts; null for a plain PromQL query. */
export function labelValuesQuery(query: string): { selector: string; label: string } | null {
  const match = /^\s*label_values\(\s*(.*?)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$/s.exec(query);
  if (match) return { selector: match[1] as string, label: match[2] as string };
  return null;
}

export interface DashboardProvider {
  name: string;
  type: string;
  folder?: string;
  options: { path: string; foldersFromFilesStructure?: boolean };
}

export function loadProviders(): Array<{ file: string; provider: DashboardProvider }> {
  const dir = path.join(PROVISIONING_DIR, 'dashboards');
  return readdirSync(repoPath(dir))
    .filter((file) => /\.ya?ml$/.test(file))
    .flatMap((file) => {
      const parsed = parse(readFileSync(repoPath(dir, file), 'utf8')) as { providers?: DashboardProvider[] };
      return (parsed.providers ?? []).map((provider) => ({ file: path.join(dir, file), provider }));
    });
}
