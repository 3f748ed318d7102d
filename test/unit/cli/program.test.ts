import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

function everyCommand(command: Command, trail: string[] = []): { name: string; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const name = [...trail, sub.name()];
    return [{ name: name.join(' '), command: sub }, ...everyCommand(sub, name)];
  });
}

function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) });
  command.outputHelp();
  return text;
}

describe('s3gw --help', () => {
  const program = buildProgram();
  const commands = everyCommand(program);

  it('covers every group of the control plane', () => {
    const names = commands.map((entry) => entry.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'login',
        'logout',
        'accept-invitation',
        'reset-password',
        'whoami',
        'sessions list',
        'sessions end',
        'account rename',
        'account password',
        'organisation show',
        'organisation rename',
        'organisation settings',
        'organisation limits',
        'organisation members',
        'organisation invite',
        'organisation role',
        'organisation remove',
        'organisation password-reset',
        'organisation audit-log',
        'organisations list',
        'organisations create',
        'organisations suspend',
        'organisations reinstate',
        'credentials create',
        'credentials list',
        'credentials show',
        'credentials rename',
        'credentials expiry',
        'credentials scope',
        'credentials rotate',
        'credentials revoke',
        'buckets create',
        'buckets list',
        'buckets show',
        'buckets public',
        'buckets quota',
        'buckets delete',
        'buckets cors set',
        'buckets cors get',
        'buckets cors delete',
        'buckets objects list',
        'buckets objects delete',
        'presign',
        'usage',
        'health',
        'version',
      ]),
    );
  });

  it.each(commands.map((entry) => [entry.name, entry.command] as const))(
    '%s shows an example',
    (_name, command) => {
      expect(helpOf(command)).toMatch(/\nExamples?:\n {2}\$ s3gw \S/);
    },
  );

  it.each(
    commands.filter((entry) => entry.command.commands.length === 0).map((entry) => [entry.name] as const),
  )('%s --help names the global options', (name) => {
    const command = commands.find((entry) => entry.name === name)!.command;
    expect(helpOf(command)).toMatch(
      /\nGlobal Options:\n(.*\n)*? {2}--profile <name> .*\n(.*\n)*? {2}--json +print JSON for scripts/,
    );
  });

  it('lists the exit codes scripts rely on', () => {
    expect(helpOf(program)).toMatch(
      /Exit codes:\n {2}0 .*\n {2}1 .*\n {2}2 .*\n {2}3 .*\n {2}4 .*\n {2}5 .*\n +unexpected error \(S3GW_DEBUG=1 prints where\)\n/,
    );
  });
});

describe('src/cli', () => {
  it('imports nothing of the gateway but src/protocol/', () => {
    const files = readdirSync(path.join(SRC, 'cli'), { recursive: true, encoding: 'utf8' }).filter(
      (file) => file.endsWith('.ts') && !file.startsWith('generated'),
    );
    expect(files.length).toBeGreaterThan(10);
    const outside: string[] = [];
    for (const file of files) {
      const absolute = path.join(SRC, 'cli', file);
      const text = readFileSync(absolute, 'utf8');
      for (const match of text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)) {
        const target = path.relative(SRC, path.resolve(path.dirname(absolute), match[1]!));
        if (!target.startsWith(`cli${path.sep}`) && !target.startsWith(`protocol${path.sep}`)) {
          outside.push(`${file} imports ${match[1]}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });
});
