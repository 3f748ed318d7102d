/**
 * Writes `LINES` access log lines to stdout as fast as it can, then reports on stderr (as JSON)
 * how many lines the access logger dropped, and again, marked final, once its last flush is over. Run by access-log.test.ts with a
 * stdout nobody reads until the report arrives.
 */
import { createAccessLogger } from '../../src/observability/logger.js';

const lines = Number(process.env.LINES ?? 100_000);
let dropped = 0;
const log = createAccessLogger('info', { onDrop: (count) => (dropped += count) });
const padding = 'x'.repeat(400);
let written = 0;
function batch(): void {
  for (let i = 0; i < 1000 && written < lines; i += 1, written += 1)
    log.info({ writer: process.pid, n: written, padding }, 's3 request');
  if (written < lines) setImmediate(batch);
  else {
    process.stderr.write(`${JSON.stringify({ dropped })}\n`);
    // Exits once the parent has read everything that was not dropped, or the final flush gave the
    // rest up; the last report counts those too.
    log.flush(() => process.stderr.write(`${JSON.stringify({ dropped, final: true })}\n`));
  }
}
batch();
