import { Command, Option } from 'commander';
import { registerAccountCommands } from './commands/account.js';
import { registerAuthCommands } from './commands/auth.js';
import { registerBucketsCommands } from './commands/buckets.js';
import { registerCredentialsCommands } from './commands/credentials.js';
import { registerOrganisationCommands } from './commands/organisation.js';
import { registerOrganisationsCommands } from './commands/organisations.js';
import { registerPresignCommand } from './commands/presign.js';
import { registerSystemCommands } from './commands/system.js';
import { registerUsageCommand } from './commands/usage.js';
import { EXIT_CODES } from './errors.js';
import { DEBUG_VARIABLE } from './failure-report.js';
import { withExamples } from './help.js';
import { cliVersion } from './version.js';

const EXIT_CODE_HELP = `Exit codes:
  ${EXIT_CODES.ok}  done
  ${EXIT_CODES.refused}  the gateway refused (the line on stderr names the problem code and request id), or is not ready
  ${EXIT_CODES.usage}  the command line is wrong (unknown command or option, bad value, unreadable file)
  ${EXIT_CODES.notLoggedIn}  not logged in, the session ended or expired, or the login was refused
  ${EXIT_CODES.unreachable}  the gateway cannot be reached
  ${EXIT_CODES.local}  s3gw failed on this machine: its profile cannot be read, written or locked, or an
     unexpected error (${DEBUG_VARIABLE}=1 prints where)

Sessions are kept per profile in $XDG_CONFIG_HOME/s3gw (default ~/.config/s3gw), readable by you only.`;

/** The whole command line: global options, every command group, and how errors leave it. */
export function buildProgram(): Command {
  const program = new Command('s3gw')
    .description('Manage an S3 gateway from the command line: log in, buckets, credentials, organisations.')
    .version(cliVersion(), '-V, --version', 'print the version of s3gw')
    .addOption(
      new Option('--profile <name>', 'which gateway and session to use (one per gateway or person)')
        .env('S3GW_PROFILE')
        .default('default'),
    )
    .option('--json', 'print JSON for scripts instead of tables')
    // Set before the commands are added, so that every command inherits them.
    .exitOverride()
    .showSuggestionAfterError()
    // `s3gw buckets list --help` then also names --json and --profile.
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 's3gw: ')) });

  registerAuthCommands(program);
  registerAccountCommands(program);
  registerOrganisationCommands(program);
  registerOrganisationsCommands(program);
  registerCredentialsCommands(program);
  registerBucketsCommands(program);
  registerPresignCommand(program);
  registerUsageCommand(program);
  registerSystemCommands(program);

  withExamples(
    program,
    's3gw login --email admin@localhost',
    's3gw buckets create photos',
    's3gw credentials create laptop --bucket photos --read-write --print aws-profile >> ~/.aws/config',
  );
  program.addHelpText('after', EXIT_CODE_HELP);
  return program;
}
