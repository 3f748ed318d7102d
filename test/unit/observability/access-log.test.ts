import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ACCESS_LOG_MAX_BUFFER_BYTES } from '../../../src/observability/access-log.js';

const WRITER = fileURLToPath(new URL('../../support/access-log-writer.ts', import.meta.url));

describe('access log', () => {
  it('drops and counts lines instead of growing without bound while stdout is not read', async () => {
    const total = 100_000; // about 50 MiB of lines, three times what may wait
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER], {
      env: { ...process.env, LINES: String(total) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Nobody reads stdout until the writer has written every line and said how it went.
    child.stdout.pause();
    let stderr = '';
    const reports = (): { dropped: number; final?: boolean }[] =>
      stderr
        .split('\n')
        .filter((text) => text.startsWith('{'))
        .map((text) => JSON.parse(text) as { dropped: number; final?: boolean });
    const report = await new Promise<{ dropped: number }>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const first = reports()[0];
        if (first !== undefined) resolve(first);
      });
      child.once('exit', (code) => reject(new Error(`writer exited (${code}) before reporting: ${stderr}`)));
    });
    expect(report.dropped).toBeGreaterThan(0);

    // What was kept arrives whole: every line complete, and kept plus dropped is every line (the
    // final report also counts what the last flush gave up, should this reader be slow).
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.stdout.resume();
    await new Promise((resolve) => child.once('close', resolve));
    const final = reports().find((candidate) => candidate.final === true);
    expect(final, stderr).toBeDefined();
    const kept = text.split('\n').filter((line) => line !== '');
    for (const line of kept) expect(JSON.parse(line)).toMatchObject({ msg: 's3 request' });
    expect(kept.length + (final?.dropped ?? 0)).toBe(total);
    // What waited was bounded: the buffer's limit and what the pipe itself holds (64 KiB here).
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(ACCESS_LOG_MAX_BUFFER_BYTES + 1024 * 1024);
  });

  it('never interleaves the lines of processes sharing one pipe (storage workers)', async () => {
    const each = 20_000;
    const writer = `'${process.execPath}' --import tsx '${WRITER}'`;
    // Both writers inherit the shell's stdout: one pipe, two processes writing as fast as they can.
    const shell = spawn('sh', ['-c', `${writer} & ${writer} & wait`], {
      env: { ...process.env, LINES: String(each) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    let stderr = '';
    shell.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    shell.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    expect(await new Promise((resolve) => shell.once('close', resolve))).toBe(0);

    const dropped = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { dropped: number; final?: boolean })
      .filter((report) => report.final === true)
      .reduce((sum, report) => sum + report.dropped, 0);
    const perWriter = new Map<number, number[]>();
    for (const line of text.split('\n').filter((candidate) => candidate !== '')) {
      const entry = JSON.parse(line) as { accessKeyId: string; requestId: string };
      const writer = Number(entry.accessKeyId);
      perWriter.set(writer, [...(perWriter.get(writer) ?? []), Number(entry.requestId)]);
    }
    expect(perWriter.size).toBe(2);
    let kept = 0;
    for (const numbers of perWriter.values()) {
      // Each writer's lines arrive whole and in order.
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      kept += numbers.length;
    }
    expect(kept + dropped).toBe(2 * each);
  });
});
