/**
 * s3gw, the gateway's command line: `npx s3gw` from a checkout or the container image (through
 * bin/s3gw.js), `npm run s3gw --` from a checkout.
 */
import { EXIT_CODES } from './errors.js';
import { reportFailure } from './failure-report.js';
import { buildProgram } from './program.js';

async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv]);
    return EXIT_CODES.ok;
  } catch (error) {
    return reportFailure(error);
  }
}

// `s3gw ... | head` closes the pipe early: that ends the command quietly, as it does for other tools.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT_CODES.ok);
  process.exit(reportFailure(error));
});

process.exitCode = await main(process.argv);
