import { CLOSED_LABEL_VALUES, ORGANISATION_OVERFLOW_LABEL } from '../../../../src/observability/metrics.js';
import { S3_ERRORS } from '../../../../src/protocol/errors.js';
import { parsePromQL, selectorsOf, type Matcher } from './promql.js';

/**
 * Every value a label can take, by metric (series name without a histogram suffix) and label: the
 * gateway's closed sets (exported next to the counters that record them), HTTP status codes, and
 * the S3 error codes ("" on success).
 */
export type ValueSets = ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;

const HTTP_STATUSES = Array.from({ length: 500 }, (_value, index) => String(100 + index));
const S3_CODES = ['', ...Object.values(S3_ERRORS).map((error) => error.code)];

export function gatewayValueSets(): ValueSets {
  const sets = new Map<string, Map<string, ReadonlySet<string>>>();
  const add = (metric: string, label: string, values: readonly string[]) => {
    const labels = sets.get(metric) ?? new Map<string, ReadonlySet<string>>();
    labels.set(label, new Set(values));
    sets.set(metric, labels);
  };
  for (const [metric, labels] of Object.entries(CLOSED_LABEL_VALUES)) {
    for (const [label, values] of Object.entries(labels)) add(metric, label, values);
  }
  add('gateway_s3_requests_total', 'status', HTTP_STATUSES);
  add('gateway_s3_requests_total', 'code', S3_CODES);
  add('gateway_control_requests_total', 'status', HTTP_STATUSES);
  return sets;
}

/** Labels whose values are open (tenant data), where a dashboard may only name the reserved values. */
const RESERVED_ONLY: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['organisation', new Set([ORGANISATION_OVERFLOW_LABEL])],
]);

/** Top-level alternatives of a regular expression ("a|b(c|d)" → ["a", "b(c|d)"]). */
export function alternativesOf(pattern: string): string[] {
  const alternatives: string[] = [];
  let depth = 0;
  let inClass = false;
  let current = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] as string;
    if (char === '\\') {
      current += char + (pattern[index + 1] ?? '');
      index += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') inClass = true;
    else if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (char === '|' && depth === 0) {
      alternatives.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  alternatives.push(current);
  return alternatives;
}

function baseName(series: string): string {
  return series.replace(/_(bucket|sum|count)$/, '');
}

function describe(matcher: Matcher): string {
  return `${matcher.label}${matcher.op}"${matcher.value}"`;
}

function matcherProblems(metric: string, matcher: Matcher, allowed: ReadonlySet<string>): string[] {
  // A Grafana variable stands for values chosen at run time.
  if (matcher.value.includes('$')) return [];
  if (matcher.op === '=' || matcher.op === '!=') {
    return allowed.has(matcher.value)
      ? []
      : [`${metric}{${describe(matcher)}}: "${matcher.value}" is not a value of label "${matcher.label}"`];
  }
  return alternativesOf(matcher.value).flatMap((alternative) => {
    let regex: RegExp;
    try {
      regex = new RegExp(`^(?:${alternative})$`);
    } catch {
      return [`${metric}{${describe(matcher)}}: invalid regular expression`];
    }
    return [...allowed].some((value) => regex.test(value))
      ? []
      : [`${metric}{${describe(matcher)}}: "${alternative}" matches no value of label "${matcher.label}"`];
  });
}

/**
 * Label matchers of an expression whose values the gateway never records: each equality value must
 * be one of the label's values, and each alternative of a regular expression must match one.
 */
export function labelValueProblems(expr: string, sets: ValueSets = gatewayValueSets()): string[] {
  return selectorsOf(parsePromQL(expr)).flatMap((selector) => {
    const metric = baseName(selector.name ?? '');
    return selector.matchers.flatMap((matcher) => {
      const closed = sets.get(metric)?.get(matcher.label);
      if (closed !== undefined) return matcherProblems(metric, matcher, closed);
      const reserved = RESERVED_ONLY.get(matcher.label);
      if (reserved !== undefined) {
        return matcherProblems(metric, matcher, reserved).map(
          (problem) =>
            `${problem} (only ${[...reserved].map((value) => `"${value}"`).join(', ')} or a variable)`,
        );
      }
      return [];
    });
  });
}
