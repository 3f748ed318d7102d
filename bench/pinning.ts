/**
 * CPU pinning with taskset: processes started bound to cores, and running ones bound afterwards
 * (the `rgw` section's pinned mode: RGW's daemons on one core, the proxy and the client on the
 * other).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Binds every thread of a running process to `cpus` (taskset -a -p -c); new threads inherit it. */
export async function pinThreads(pid: number, cpus: string): Promise<void> {
  await run('taskset', ['-a', '-p', '-c', cpus, String(pid)]);
}

/** The command line that starts `command` bound to `cpus`, or unbound when `cpus` is undefined. */
export function boundCommand(command: readonly string[], cpus: string | undefined): string[] {
  return cpus === undefined ? [...command] : ['taskset', '-c', cpus, ...command];
}
