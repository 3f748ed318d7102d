/**
 * A small PromQL parser, enough to check the expressions in the Grafana dashboards: which metrics they
 * name, which labels they match on, group by or join on, and whether those labels survive to the point
 * where they are used. It follows the Prometheus grammar (operator precedence, aggregation modifiers
 * before or after the argument, vector matching, range and subquery selectors, offset and @).
 */

export type Matcher = { label: string; op: '=' | '!=' | '=~' | '!~'; value: string };

export type PromNode =
  | { kind: 'number'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'selector'; name: string | null; matchers: Matcher[] }
  | { kind: 'range'; expr: PromNode; subquery: boolean }
  | { kind: 'call'; func: string; args: PromNode[] }
  | {
      kind: 'aggregation';
      op: string;
      grouping: { mode: 'by' | 'without'; labels: string[] } | null;
      param: PromNode | null;
      expr: PromNode;
    }
  | {
      kind: 'binary';
      op: string;
      lhs: PromNode;
      rhs: PromNode;
      matching: { mode: 'on' | 'ignoring'; labels: string[] } | null;
      group: { side: 'left' | 'right'; labels: string[] } | null;
    }
  | { kind: 'unary'; op: '-' | '+'; expr: PromNode }
  | { kind: 'paren'; expr: PromNode };

export class PromQLSyntaxError extends Error {}

const AGGREGATIONS = new Set([
  'sum',
  'avg',
  'count',
  'min',
  'max',
  'group',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'count_values',
  'limitk',
  'limit_ratio',
]);
const PARAMETRIC_AGGREGATIONS = new Set([
  'topk',
  'bottomk',
  'quantile',
  'count_values',
  'limitk',
  'limit_ratio',
]);

/** Functions that keep the labels of their (single) instant or range vector argument. */
const LABEL_PRESERVING = new Set([
  'abs',
  'absent_over_time',
  'avg_over_time',
  'ceil',
  'changes',
  'clamp',
  'clamp_max',
  'clamp_min',
  'count_over_time',
  'delta',
  'deriv',
  'double_exponential_smoothing',
  'exp',
  'floor',
  'holt_winters',
  'idelta',
  'increase',
  'irate',
  'last_over_time',
  'ln',
  'log10',
  'log2',
  'mad_over_time',
  'max_over_time',
  'min_over_time',
  'predict_linear',
  'present_over_time',
  'quantile_over_time',
  'rate',
  'resets',
  'round',
  'sgn',
  'sort',
  'sort_desc',
  'sqrt',
  'stddev_over_time',
  'stdvar_over_time',
  'sum_over_time',
  'timestamp',
  'day_of_month',
  'day_of_week',
  'day_of_year',
  'days_in_month',
  'hour',
  'minute',
  'month',
  'year',
  'acos',
  'acosh',
  'asin',
  'asinh',
  'atan',
  'atanh',
  'cos',
  'cosh',
  'deg',
  'rad',
  'sin',
  'sinh',
  'tan',
  'tanh',
]);
const OTHER_FUNCTIONS = new Set([
  'absent',
  'histogram_quantile',
  'histogram_fraction',
  'label_replace',
  'label_join',
  'scalar',
  'vector',
  'time',
  'pi',
  'sort_by_label',
  'sort_by_label_desc',
]);

const KNOWN_FUNCTIONS = new Set([...LABEL_PRESERVING, ...OTHER_FUNCTIONS]);

type Token =
  | { type: 'ident'; value: string; pos: number }
  | { type: 'number'; value: number; pos: number }
  | { type: 'duration'; value: string; pos: number }
  | { type: 'string'; value: string; pos: number }
  | { type: 'punct'; value: string; pos: number }
  | { type: 'end'; pos: number };

/** Grafana's interval variables stand for a duration wherever they appear. */
export function substituteGrafanaIntervals(expr: string): string {
  return expr.replace(/\$\{?__(rate_interval|interval|range)(_ms)?\}?/g, (_match, _name, ms) =>
    ms === undefined ? '5m' : '300000',
  );
}

const PUNCTUATION = ['==', '!=', '=~', '!~', '<=', '>=', '<', '>', '=', '+', '-', '*', '/', '%', '^'];
const SINGLE = ['(', ')', '{', '}', '[', ']', ',', ':', '@'];

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const char = input[i] as string;
    if (/\s/.test(char)) {
      i += 1;
      continue;
    }
    if (char === '#') {
      while (i < input.length && input[i] !== '\n') i += 1;
      continue;
    }
    if (char === '"' || char === "'" || char === '`') {
      const start = i;
      let value = '';
      i += 1;
      while (i < input.length && input[i] !== char) {
        if (input[i] === '\\' && char !== '`') {
          value += input[i + 1] ?? '';
          i += 2;
        } else {
          value += input[i];
          i += 1;
        }
      }
      if (i >= input.length) throw new PromQLSyntaxError(`unterminated string at ${start}`);
      i += 1;
      tokens.push({ type: 'string', value, pos: start });
      continue;
    }
    const rest = input.slice(i);
    const duration = /^(?:\d+(?:ms|s|m|h|d|w|y))+(?![A-Za-z0-9_])/.exec(rest);
    if (duration) {
      tokens.push({ type: 'duration', value: duration[0], pos: i });
      i += duration[0].length;
      continue;
    }
    const number = /^(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?![A-Za-z_])/.exec(rest);
    if (number) {
      tokens.push({ type: 'number', value: Number(number[0]), pos: i });
      i += number[0].length;
      continue;
    }
    const ident = /^[A-Za-z_][A-Za-z0-9_:]*/.exec(rest);
    if (ident) {
      if (/^(?:Inf|NaN)$/i.test(ident[0])) tokens.push({ type: 'number', value: Number(ident[0]), pos: i });
      else tokens.push({ type: 'ident', value: ident[0], pos: i });
      i += ident[0].length;
      continue;
    }
    const punct = PUNCTUATION.find((candidate) => rest.startsWith(candidate));
    if (punct !== undefined) {
      tokens.push({ type: 'punct', value: punct, pos: i });
      i += punct.length;
      continue;
    }
    if (SINGLE.includes(char)) {
      tokens.push({ type: 'punct', value: char, pos: i });
      i += 1;
      continue;
    }
    if (char === '$')
      throw new PromQLSyntaxError(`unresolved template variable at ${i}: ${rest.slice(0, 20)}`);
    throw new PromQLSyntaxError(`unexpected character "${char}" at ${i}`);
  }
  tokens.push({ type: 'end', pos: input.length });
  return tokens;
}

const BINARY_PRECEDENCE: Record<string, number> = {
  or: 1,
  and: 2,
  unless: 2,
  '==': 3,
  '!=': 3,
  '<=': 3,
  '<': 3,
  '>=': 3,
  '>': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  atan2: 5,
  '^': 6,
};

class Parser {
  readonly #tokens: Token[];
  #index = 0;

  constructor(input: string) {
    this.#tokens = tokenize(input);
  }

  parse(): PromNode {
    const node = this.#expression(0);
    const next = this.#peek();
    if (next.type !== 'end') throw new PromQLSyntaxError(`unexpected ${describe(next)} at ${next.pos}`);
    return node;
  }

  #peek(offset = 0): Token {
    return this.#tokens[Math.min(this.#index + offset, this.#tokens.length - 1)] as Token;
  }

  #next(): Token {
    const token = this.#peek();
    this.#index += 1;
    return token;
  }

  #isPunct(value: string, offset = 0): boolean {
    const token = this.#peek(offset);
    return token.type === 'punct' && token.value === value;
  }

  #isIdent(value: string, offset = 0): boolean {
    const token = this.#peek(offset);
    return token.type === 'ident' && token.value === value;
  }

  #expect(value: string): void {
    const token = this.#next();
    if (token.type !== 'punct' || token.value !== value) {
      throw new PromQLSyntaxError(`expected "${value}" but found ${describe(token)} at ${token.pos}`);
    }
  }

  #binaryOperator(): string | null {
    const token = this.#peek();
    if (token.type === 'punct' && token.value in BINARY_PRECEDENCE) return token.value;
    if (token.type === 'ident' && ['and', 'or', 'unless', 'atan2'].includes(token.value)) return token.value;
    return null;
  }

  #expression(minPrecedence: number): PromNode {
    let lhs = this.#unary();
    for (;;) {
      const op = this.#binaryOperator();
      if (op === null) return lhs;
      const precedence = BINARY_PRECEDENCE[op] as number;
      if (precedence < minPrecedence) return lhs;
      this.#next();
      if (this.#isIdent('bool')) this.#next();
      let matching: { mode: 'on' | 'ignoring'; labels: string[] } | null = null;
      let group: { side: 'left' | 'right'; labels: string[] } | null = null;
      if ((this.#isIdent('on') || this.#isIdent('ignoring')) && this.#isPunct('(', 1)) {
        const mode = (this.#next() as { value: string }).value as 'on' | 'ignoring';
        matching = { mode, labels: this.#labelList() };
      }
      if (this.#isIdent('group_left') || this.#isIdent('group_right')) {
        const side = (this.#next() as { value: string }).value === 'group_left' ? 'left' : 'right';
        group = { side, labels: this.#isPunct('(') ? this.#labelList() : [] };
      }
      // ^ is right-associative; every other operator is left-associative.
      const rhs = this.#expression(op === '^' ? precedence : precedence + 1);
      lhs = { kind: 'binary', op, lhs, rhs, matching, group };
    }
  }

  #unary(): PromNode {
    if (this.#isPunct('-') || this.#isPunct('+')) {
      const op = (this.#next() as { value: string }).value as '-' | '+';
      // Unary minus binds less tightly than ^ (-2^2 is -4).
      return { kind: 'unary', op, expr: this.#expression(BINARY_PRECEDENCE['^'] as number) };
    }
    return this.#postfix(this.#primary());
  }

  #postfix(node: PromNode): PromNode {
    let result = node;
    for (;;) {
      if (this.#isPunct('[')) {
        this.#next();
        this.#duration();
        let subquery = false;
        if (this.#isPunct(':')) {
          this.#next();
          subquery = true;
          if (!this.#isPunct(']')) this.#duration();
        }
        this.#expect(']');
        if (!subquery && result.kind !== 'selector') {
          throw new PromQLSyntaxError(
            'a range can only follow a metric selector (use a subquery [range:step])',
          );
        }
        result = { kind: 'range', expr: result, subquery };
      } else if (this.#isIdent('offset')) {
        this.#next();
        if (this.#isPunct('-')) this.#next();
        this.#duration();
      } else if (this.#isPunct('@')) {
        this.#next();
        const token = this.#next();
        if (token.type === 'ident' && ['start', 'end'].includes(token.value)) {
          this.#expect('(');
          this.#expect(')');
        } else if (token.type !== 'number') {
          throw new PromQLSyntaxError(`expected a timestamp after @ at ${token.pos}`);
        }
      } else {
        return result;
      }
    }
  }

  #duration(): string {
    const token = this.#next();
    if (token.type !== 'duration') {
      throw new PromQLSyntaxError(`expected a duration but found ${describe(token)} at ${token.pos}`);
    }
    return token.value;
  }

  #labelList(): string[] {
    this.#expect('(');
    const labels: string[] = [];
    while (!this.#isPunct(')')) {
      const token = this.#next();
      if (token.type !== 'ident') {
        throw new PromQLSyntaxError(`expected a label name but found ${describe(token)} at ${token.pos}`);
      }
      labels.push(token.value);
      if (this.#isPunct(',')) this.#next();
      else break;
    }
    this.#expect(')');
    return labels;
  }

  #matchers(): Matcher[] {
    this.#expect('{');
    const matchers: Matcher[] = [];
    while (!this.#isPunct('}')) {
      const label = this.#next();
      if (label.type !== 'ident') {
        throw new PromQLSyntaxError(`expected a label name but found ${describe(label)} at ${label.pos}`);
      }
      const op = this.#next();
      if (op.type !== 'punct' || !['=', '!=', '=~', '!~'].includes(op.value)) {
        throw new PromQLSyntaxError(`expected a label matcher operator at ${op.pos}`);
      }
      const value = this.#next();
      if (value.type !== 'string') {
        throw new PromQLSyntaxError(`expected a quoted label value at ${value.pos}`);
      }
      matchers.push({ label: label.value, op: op.value as Matcher['op'], value: value.value });
      if (this.#isPunct(',')) this.#next();
      else break;
    }
    this.#expect('}');
    return matchers;
  }

  #arguments(): PromNode[] {
    this.#expect('(');
    const args: PromNode[] = [];
    while (!this.#isPunct(')')) {
      args.push(this.#expression(0));
      if (this.#isPunct(',')) this.#next();
      else break;
    }
    this.#expect(')');
    return args;
  }

  #grouping(): { mode: 'by' | 'without'; labels: string[] } | null {
    if ((this.#isIdent('by') || this.#isIdent('without')) && this.#isPunct('(', 1)) {
      const mode = (this.#next() as { value: string }).value as 'by' | 'without';
      return { mode, labels: this.#labelList() };
    }
    return null;
  }

  #primary(): PromNode {
    const token = this.#peek();
    if (token.type === 'number') {
      this.#next();
      return { kind: 'number', value: token.value };
    }
    if (token.type === 'string') {
      this.#next();
      return { kind: 'string', value: token.value };
    }
    if (token.type === 'punct' && token.value === '(') {
      this.#next();
      const expr = this.#expression(0);
      this.#expect(')');
      return { kind: 'paren', expr };
    }
    if (token.type === 'punct' && token.value === '{') {
      const matchers = this.#matchers();
      const name = matchers.find((matcher) => matcher.label === '__name__' && matcher.op === '=');
      return { kind: 'selector', name: name?.value ?? null, matchers };
    }
    if (token.type === 'ident') {
      const name = token.value;
      if (
        AGGREGATIONS.has(name) &&
        (this.#isPunct('(', 1) || this.#isIdent('by', 1) || this.#isIdent('without', 1))
      ) {
        this.#next();
        let grouping = this.#grouping();
        const args = this.#arguments();
        grouping ??= this.#grouping();
        const parametric = PARAMETRIC_AGGREGATIONS.has(name);
        if (args.length !== (parametric ? 2 : 1)) {
          throw new PromQLSyntaxError(`${name} takes ${parametric ? 2 : 1} argument(s), got ${args.length}`);
        }
        return {
          kind: 'aggregation',
          op: name,
          grouping,
          param: parametric ? (args[0] as PromNode) : null,
          expr: args[parametric ? 1 : 0] as PromNode,
        };
      }
      if (this.#isPunct('(', 1)) {
        this.#next();
        if (!KNOWN_FUNCTIONS.has(name)) throw new PromQLSyntaxError(`unknown function ${name}()`);
        return { kind: 'call', func: name, args: this.#arguments() };
      }
      this.#next();
      const matchers = this.#isPunct('{') ? this.#matchers() : [];
      return { kind: 'selector', name, matchers };
    }
    throw new PromQLSyntaxError(`unexpected ${describe(token)} at ${token.pos}`);
  }
}

function describe(token: Token): string {
  return token.type === 'end' ? 'end of expression' : `${token.type} "${String(token.value)}"`;
}

/** Parses one PromQL expression; Grafana's interval variables are replaced by a duration first. */
export function parsePromQL(expr: string): PromNode {
  return new Parser(substituteGrafanaIntervals(expr)).parse();
}

/** Every vector selector in the expression, outermost first. */
export function selectorsOf(node: PromNode): Array<Extract<PromNode, { kind: 'selector' }>> {
  switch (node.kind) {
    case 'selector':
      return [node];
    case 'range':
    case 'unary':
    case 'paren':
      return selectorsOf(node.expr);
    case 'call':
      return node.args.flatMap(selectorsOf);
    case 'aggregation':
      return [...(node.param ? selectorsOf(node.param) : []), ...selectorsOf(node.expr)];
    case 'binary':
      return [...selectorsOf(node.lhs), ...selectorsOf(node.rhs)];
    default:
      return [];
  }
}

/** The metric names an expression reads (selectors without a name are reported as "{…}"). */
export function metricNamesOf(expr: string): string[] {
  return [...new Set(selectorsOf(parsePromQL(expr)).map((selector) => selector.name ?? '{…}'))];
}

/** Series name → the label names it can carry (target labels such as job/instance included). */
export type MetricCatalog = ReadonlyMap<string, ReadonlySet<string>>;

const ANY = Symbol('any labels');
type LabelSet = ReadonlySet<string> | typeof ANY | 'scalar' | 'string';

/**
 * Checks an expression against the metrics that exist: every metric must be in the catalog, every
 * label matched, grouped by, joined on or used by histogram_quantile must be present at that point of
 * the expression (aggregations drop labels), and one-to-one binary operations must have the same
 * labels on both sides (otherwise no series match and the panel stays empty). Returns the problems.
 */
export function checkPromQL(expr: string, catalog: MetricCatalog): string[] {
  const problems: string[] = [];
  let root: PromNode;
  try {
    root = parsePromQL(expr);
  } catch (error) {
    return [`syntax: ${(error as Error).message}`];
  }
  const missing = (labels: readonly string[], set: LabelSet): string[] =>
    set === ANY || set === 'scalar' || set === 'string' ? [] : labels.filter((label) => !set.has(label));

  const visit = (node: PromNode): LabelSet => {
    switch (node.kind) {
      case 'number':
        return 'scalar';
      case 'string':
        return 'string';
      case 'paren':
      case 'unary':
      case 'range':
        return visit(node.expr);
      case 'selector': {
        if (node.name === null) {
          problems.push('selector without a metric name');
          return ANY;
        }
        const labels = catalog.get(node.name);
        if (labels === undefined) {
          problems.push(`unknown metric ${node.name}`);
          return ANY;
        }
        for (const matcher of node.matchers) {
          if (matcher.label !== '__name__' && !labels.has(matcher.label)) {
            problems.push(`metric ${node.name} has no label "${matcher.label}"`);
          }
        }
        return labels;
      }
      case 'aggregation': {
        if (node.param) visit(node.param);
        const input = visit(node.expr);
        const grouping = node.grouping;
        if (grouping) {
          for (const label of missing(grouping.labels, input)) {
            problems.push(`${node.op} ${grouping.mode} (${label}): no "${label}" label on its argument`);
          }
        }
        if (['topk', 'bottomk', 'limitk', 'limit_ratio'].includes(node.op)) return input;
        const kept =
          grouping === null
            ? new Set<string>()
            : grouping.mode === 'by'
              ? new Set(grouping.labels)
              : input === ANY || typeof input === 'string'
                ? ANY
                : new Set([...input].filter((label) => !grouping.labels.includes(label)));
        if (node.op === 'count_values' && node.param?.kind === 'string' && kept !== ANY) {
          return new Set([...kept, node.param.value]);
        }
        return kept;
      }
      case 'call': {
        const args = node.args.map(visit);
        if (node.func === 'histogram_quantile' || node.func === 'histogram_fraction') {
          const vector = args.at(-1) as LabelSet;
          if (missing(['le'], vector).length > 0) {
            problems.push(`${node.func} needs a "le" label: aggregate _bucket series with "by (le, ...)"`);
          }
          return vector === ANY || typeof vector === 'string'
            ? vector
            : new Set([...vector].filter((label) => label !== 'le'));
        }
        if (node.func === 'label_replace' || node.func === 'label_join') {
          const vector = args[0] as LabelSet;
          const destination = node.args[1];
          const sources =
            node.func === 'label_replace'
              ? node.args.slice(3, 4)
              : node.args.slice(3).filter((arg) => arg.kind === 'string');
          for (const source of sources) {
            if (source.kind === 'string' && source.value !== '') {
              for (const label of missing([source.value], vector)) {
                problems.push(`${node.func}: no "${label}" label on its argument`);
              }
            }
          }
          if (vector === ANY || typeof vector === 'string' || destination?.kind !== 'string') return vector;
          return new Set([...vector, destination.value]);
        }
        if (node.func === 'sort_by_label' || node.func === 'sort_by_label_desc') {
          const vector = args[0] as LabelSet;
          for (const arg of node.args.slice(1)) {
            if (arg.kind === 'string') {
              for (const label of missing([arg.value], vector)) {
                problems.push(`${node.func}: no "${label}" label on its argument`);
              }
            }
          }
          return vector;
        }
        if (node.func === 'vector') return new Set<string>();
        if (node.func === 'scalar' || node.func === 'time' || node.func === 'pi') return 'scalar';
        if (node.func === 'absent') return new Set<string>();
        const vectorArg = args.find((set) => set !== 'scalar' && set !== 'string');
        return vectorArg ?? new Set<string>();
      }
      case 'binary': {
        const lhs = visit(node.lhs);
        const rhs = visit(node.rhs);
        if (lhs === 'scalar') return rhs;
        if (rhs === 'scalar') return lhs;
        if (lhs === ANY || rhs === ANY || typeof lhs === 'string' || typeof rhs === 'string') return ANY;
        if (node.matching?.mode === 'on') {
          for (const label of [
            ...missing(node.matching.labels, lhs),
            ...missing(node.matching.labels, rhs),
          ]) {
            problems.push(`${node.op} on (${label}): "${label}" is missing on one side`);
          }
        }
        if (node.group) {
          const other = node.group.side === 'left' ? rhs : lhs;
          for (const label of missing(node.group.labels, other)) {
            problems.push(`group_${node.group.side} (${label}): no "${label}" label on the other side`);
          }
          const many = node.group.side === 'left' ? lhs : rhs;
          return new Set([...many, ...node.group.labels]);
        }
        if (node.op === 'or') return new Set([...lhs, ...rhs]);
        if (node.op === 'and' || node.op === 'unless') return lhs;
        if (node.matching?.mode === 'on') return new Set(node.matching.labels);
        const ignored = new Set(node.matching?.labels ?? []);
        const left = [...lhs].filter((label) => !ignored.has(label)).sort();
        const right = [...rhs].filter((label) => !ignored.has(label)).sort();
        if (left.join(',') !== right.join(',')) {
          problems.push(
            `"${node.op}" joins series with different labels (${left.join(',') || 'none'} vs ${right.join(',') || 'none'}): no series would match`,
          );
        }
        return new Set(left);
      }
    }
  };
  visit(root);
  return problems;
}
