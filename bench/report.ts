/** Printing: a table per section, then every target line by line. */
import { passes, type Check, type Section } from './measure.js';

export function printTable(
  columns: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): void {
  const cells = [columns, ...rows].map((row) => row.map((cell) => String(cell)));
  const widths = columns.map((_, index) => Math.max(...cells.map((row) => (row[index] ?? '').length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, index) =>
        typeof rows[0]?.[index] === 'number'
          ? cell.padStart(widths[index] ?? 0)
          : cell.padEnd(widths[index] ?? 0),
      )
      .join('  ')
      .trimEnd();
  console.log(line(cells[0] ?? []));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of cells.slice(1)) console.log(line(row));
}

export function printSection(section: Section): void {
  console.log(`\n## ${section.title}\n`);
  printTable(section.columns, section.rows);
  for (const note of section.notes ?? []) console.log(`  ${note}`);
  for (const table of section.tables ?? []) {
    console.log(`\n### ${table.title}\n`);
    printTable(table.columns, table.rows);
    for (const note of table.notes ?? []) console.log(`  ${note}`);
  }
}

/** The targets table: ok, MISSED or not run, with the value and the limit. */
export function printTargets(checks: readonly Check[]): void {
  console.log('\n## Targets\n');
  printTable(
    ['', 'measurement', 'value', 'target', 'constant'],
    checks.map((check) => {
      const pass = passes(check);
      return [
        pass === null ? 'not run' : pass ? 'ok' : 'MISSED',
        check.name,
        check.value === null ? (check.reason ?? '') : `${check.value} ${check.unit}`,
        `${check.target.kind === 'min' ? '≥' : '≤'} ${check.target.limit} ${check.unit}`,
        check.target.constant,
      ];
    }),
  );
}
