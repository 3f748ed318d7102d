import { createInterface } from 'node:readline/promises';
import { UsageError } from './errors.js';

const ENTER = new Set(['\r', '\n']);
const BACKSPACE = new Set(['\u007f', '\b']);
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';

/** Everything piped to stdin, without the newline that `echo` or a here-string adds. */
export async function readStdinSecret(what: string): Promise<string> {
  if (process.stdin.isTTY) {
    throw new UsageError(`--password-stdin reads ${what} from a pipe, e.g. printf '%s' "$PW" | s3gw ...`);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (text === '') throw new UsageError(`--password-stdin got no ${what} on stdin`);
  return text;
}

/** Where a prompt reads keys and writes: the terminal (stdin, and stderr so stdout stays clean). */
export interface Terminal {
  input: Pick<NodeJS.ReadStream, 'isTTY' | 'setRawMode' | 'setEncoding' | 'resume' | 'pause' | 'on' | 'off'>;
  output: { write(text: string): unknown };
}

const PROCESS_TERMINAL: Terminal = { input: process.stdin, output: process.stderr };

/**
 * Asks at the terminal without echoing what is typed (not even asterisks: their count tells an
 * onlooker the length). Raw mode hands over each key; the terminal is restored on every path out.
 */
export async function promptSecret(prompt: string, terminal: Terminal = PROCESS_TERMINAL): Promise<string> {
  const { input, output } = terminal;
  if (!input.isTTY) {
    throw new UsageError('there is no terminal to ask for the password on: pipe it with --password-stdin');
  }
  output.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = '';
      const onData = (keys: string) => {
        for (const key of keys) {
          if (ENTER.has(key) || key === CTRL_D) {
            input.off('data', onData);
            resolve(typed);
            return;
          }
          // Raw mode turns Ctrl-C into a key instead of SIGINT: end as a cancelled command would.
          if (key === CTRL_C) {
            input.off('data', onData);
            reject(new UsageError('cancelled'));
            return;
          }
          if (BACKSPACE.has(key)) typed = typed.slice(0, -1);
          else typed += key;
        }
      };
      input.on('data', onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
    output.write('\n');
  }
}

/** Asks for an ordinary answer (echoed), e.g. the e-mail address. */
export async function promptLine(prompt: string, missing: string): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError(missing);
  const reader = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await reader.question(prompt)).trim();
    if (answer === '') throw new UsageError(missing);
    return answer;
  } finally {
    reader.close();
  }
}

/** The secret from stdin when `fromStdin`, else from a prompt (twice when `confirm`, to catch typos). */
export async function readSecret(options: {
  fromStdin: boolean;
  prompt: string;
  what: string;
  confirm?: boolean;
}): Promise<string> {
  if (options.fromStdin) return readStdinSecret(options.what);
  const first = await promptSecret(options.prompt);
  if (first === '') throw new UsageError(`no ${options.what} given`);
  if (options.confirm === true && (await promptSecret('Again: ')) !== first) {
    throw new UsageError(`the two ${options.what}s differ`);
  }
  return first;
}
