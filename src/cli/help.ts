import type { Command } from 'commander';

/** Adds examples to a command's --help: every command shows at least one. */
export function withExamples(command: Command, ...examples: string[]): Command {
  return command.addHelpText(
    'after',
    `\nExample${examples.length > 1 ? 's' : ''}:\n${examples.map((line) => `  $ ${line}`).join('\n')}\n`,
  );
}
