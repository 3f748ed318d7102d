import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { LocalError, RefusedError } from '../../../src/cli/errors.js';
import { reportFailure } from '../../../src/cli/failure-report.js';

function reported(error: unknown, env: NodeJS.ProcessEnv = {}): { code: number; stderr: string } {
  let stderr = '';
  const code = reportFailure(error, { write: (text: string) => (stderr += text) }, env);
  return { code, stderr };
}

describe('how a failed command ends', () => {
  it('a refusal: its one line, exit code 1', () => {
    expect(reported(new RefusedError('The bucket name is taken (bucket_name_taken, HTTP 409)'))).toEqual({
      code: 1,
      stderr: 's3gw: The bucket name is taken (bucket_name_taken, HTTP 409)\n',
    });
  });

  it('something s3gw did not expect: one line, exit code 5, naming the variable that shows where', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'items')\n    at somewhere");
    expect(reported(bug)).toEqual({
      code: 5,
      stderr:
        "s3gw: unexpected failure: Cannot read properties of undefined (reading 'items') at somewhere (S3GW_DEBUG=1 shows where)\n",
    });
    expect(reported('thrown text')).toEqual({
      code: 5,
      stderr: 's3gw: unexpected failure: thrown text (S3GW_DEBUG=1 shows where)\n',
    });
  });

  it('with S3GW_DEBUG set: the line, then the stack of the error and of its causes', () => {
    const bug = new Error('boom');
    const { code, stderr } = reported(bug, { S3GW_DEBUG: '1' });
    expect(code).toBe(5);
    expect(stderr).toBe(`s3gw: unexpected failure: boom\n${bug.stack}\n`);

    const cause = Object.assign(new Error('EISDIR: illegal operation on a directory, read'), {
      code: 'EISDIR',
    });
    const local = new LocalError('cannot read the profile /p.json: it is a directory (EISDIR)', { cause });
    expect(reported(local, { S3GW_DEBUG: 'yes' })).toEqual({
      code: 5,
      stderr: `s3gw: cannot read the profile /p.json: it is a directory (EISDIR)\n${local.stack}\ncaused by: ${cause.stack}\n`,
    });
    for (const off of ['', '0', 'false'])
      expect(reported(bug, { S3GW_DEBUG: off }).stderr.split('\n')).toHaveLength(2);
  });

  it("commander's own errors: it has printed them; help and version exit 0, the rest 2", () => {
    expect(reported(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toEqual({
      code: 0,
      stderr: '',
    });
    expect(reported(new CommanderError(1, 'commander.unknownOption', "unknown option '--colour'"))).toEqual({
      code: 2,
      stderr: '',
    });
  });
});
