/**
 * s3gw, the gateway's command line: `npx s3gw` from a checkout or the container image (through
 * bin/s3gw.js), `npm run s3gw --` from a checkout.
 */
import { CommanderError } from 'commander';
import { CliError, EXIT_CODES } from './errors.js';
import { buildProgram } from './program.js';

async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv]);
    return EXIT_CODES.ok;
  } catch (error) {
    // commander has already printed its own message (or the help, or the version).
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
    if (error instanceof CliError) {
      process.stderr.write(`s3gw: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(
      `s3gw: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT_CODES.refused;
  }
}

// `s3gw ... | head` closes the pipe early: that ends the command quietly, as it does for other tools.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT_CODES.ok);
  throw error;
});

process.exitCode = await main(process.argv);
