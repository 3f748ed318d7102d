/**
 * Writes `LINES` access log lines to stdout as fast as it can, then reports on stderr (as JSON)
 * how many lines the access log dropped, and again, marked final, once its last flush is over. Run
 * by access-log.test.ts with a stdout nobody reads until the report arrives. Each line names this
 * process (`accessKeyId`) and its number (`requestId`), and carries a long target.
 */
import { createAccessLog } from '../../src/observability/access-log.js';

const lines = Number(process.env.LINES ?? 100_000);
let dropped = 0;
const log = createAccessLog('info', { onDrop: (count) => (dropped += count) });
const target = `/bucket/${'x'.repeat(400)}`;
let written = 0;
function batch(): void {
  for (let i = 0; i < 1000 && written < lines; i += 1, written += 1)
    log.record({
      requestId: String(written),
      method: 'GET',
      target,
      operation: 'GetObject',
      status: 200,
      code: '',
      bucket: 'bucket',
      accessKeyId: String(process.pid),
      organisationId: null,
      bytesIn: 0,
      bytesOut: 4096,
      durationMs: 0.5,
      userAgent: null,
      remoteAddress: '127.0.0.1',
    });
  if (written < lines) setImmediate(batch);
  else {
    process.stderr.write(`${JSON.stringify({ dropped })}\n`);
    // Exits once the parent has read everything that was not dropped, or the final flush gave the
    // rest up; the last report counts those too.
    log.flush();
    process.stderr.write(`${JSON.stringify({ dropped, final: true })}\n`);
  }
}
batch();
