import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CliError, EXIT_CODES } from '../../../src/cli/errors.js';
import { promptSecret, type Terminal } from '../../../src/cli/password-input.js';

/** A terminal as a person uses it: keys typed on stdin, what the prompt writes, raw mode switches. */
function fakeTerminal(isTTY = true) {
  const keys = new PassThrough();
  const rawModes: boolean[] = [];
  let written = '';
  const input = Object.assign(keys, {
    isTTY,
    setRawMode(mode: boolean) {
      rawModes.push(mode);
      return input;
    },
  }) as unknown as Terminal['input'] & PassThrough;
  const terminal: Terminal = { input, output: { write: (text: string) => (written += text) } };
  return {
    terminal,
    type: (text: string) => keys.write(text),
    rawModes,
    written: () => written,
    paused: () => keys.isPaused(),
  };
}

describe('the password prompt', () => {
  it('echoes nothing of what is typed, and takes backspace', async () => {
    const tty = fakeTerminal();
    const answer = promptSecret('Password for ada@example.com: ', tty.terminal);
    tty.type('hunter');
    tty.type('x\u007f');
    tty.type('22\b2\r');
    expect(await answer).toBe('hunter22');
    expect(tty.written()).toBe('Password for ada@example.com: \n');
    expect(tty.rawModes).toEqual([true, false]);
    expect(tty.paused()).toBe(true);
  });

  it('ends at Ctrl-D as at Enter', async () => {
    const tty = fakeTerminal();
    const answer = promptSecret('Password: ', tty.terminal);
    tty.type('a long password\u0004ignored');
    expect(await answer).toBe('a long password');
    expect(tty.rawModes).toEqual([true, false]);
  });

  it('is cancelled by Ctrl-C with exit code 2, the terminal back to normal', async () => {
    const tty = fakeTerminal();
    const answer = promptSecret('Password: ', tty.terminal).then(
      () => null,
      (error: unknown) => error,
    );
    tty.type('half\u0003');
    const error = await answer;
    expect(error).toBeInstanceOf(CliError);
    expect([(error as CliError).message, (error as CliError).exitCode]).toEqual([
      'cancelled',
      EXIT_CODES.usage,
    ]);
    expect(tty.written()).toBe('Password: \n');
    expect(tty.rawModes).toEqual([true, false]);
    expect(tty.paused()).toBe(true);
  });

  it('without a terminal, asks for --password-stdin instead of waiting', async () => {
    const pipe = fakeTerminal(false);
    await expect(promptSecret('Password: ', pipe.terminal)).rejects.toThrow(
      'there is no terminal to ask for the password on: pipe it with --password-stdin',
    );
    expect(pipe.written()).toBe('');
    expect(pipe.rawModes).toEqual([]);
  });
});
