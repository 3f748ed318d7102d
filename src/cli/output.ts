/** A cell as commands give it; formatted by {@link cell}. */
export type CellValue = string | number | boolean | null | undefined;

export interface Column<Row> {
  header: string;
  value: (row: Row) => CellValue;
}

/**
 * What a command prints: for people, aligned tables and "label: value" lines; with `--json`, the
 * API's own JSON and nothing else on stdout, so scripts can parse it. Notes for people (hints,
 * "shown only now") go to stderr in both modes.
 */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {}

  /** `value` as JSON with --json; otherwise whatever `forPeople` prints. */
  result(value: unknown, forPeople: () => void): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else forPeople();
  }

  line(text = ''): void {
    this.stdout.write(`${text}\n`);
  }

  note(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  table<Row>(rows: readonly Row[], columns: readonly Column<Row>[], whenEmpty: string): void {
    if (rows.length === 0) {
      this.line(whenEmpty);
      return;
    }
    const cells = rows.map((row) => columns.map((column) => cell(column.value(row))));
    const widths = columns.map((column, index) =>
      Math.max(column.header.length, ...cells.map((values) => values[index]!.length)),
    );
    const render = (values: readonly string[]) =>
      values
        .map((value, index) => (index === values.length - 1 ? value : value.padEnd(widths[index]!)))
        .join('  ');
    this.line(render(columns.map((column) => column.header.toUpperCase())));
    for (const values of cells) this.line(render(values));
  }

  fields(pairs: ReadonlyArray<readonly [string, CellValue]>): void {
    const width = Math.max(...pairs.map(([label]) => label.length));
    for (const [label, value] of pairs) this.line(`${`${label}:`.padEnd(width + 1)} ${cell(value)}`);
  }
}

export function cell(value: CellValue): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** An API time (ISO 8601) as people read it: to the second, in UTC. */
export function when(iso: string | null | undefined): string | null {
  if (iso === null || iso === undefined) return null;
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  return `${time.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** A byte count with a binary unit, e.g. 1.5 MiB. */
export function bytes(count: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${count} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
