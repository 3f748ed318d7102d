import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
}

/**
 * The committed document passes a standard linter with its recommended rules, warnings included:
 * Swagger UI, client generators and API gateways read it, and each is stricter somewhere.
 */
describe('the OpenAPI document under redocly lint', () => {
  it('has no error and no warning', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(root, 'node_modules/.bin/redocly'), 'lint', 'openapi/openapi.json', '--format=json'],
      {
        cwd: root,
        // Offline and quiet: no usage report sent home, no update check.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(stdout) as LintReport;
    const problems = report.problems.map(
      (problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});
