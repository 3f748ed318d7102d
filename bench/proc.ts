/**
 * CPU time and memory of running processes, read from Linux's /proc, so that any process can be
 * measured from outside (the compiled gateway and its workers, RGW's daemons, wrk) without its help.
 *
 * A "tree" is a process and all its descendants, found by walking the ppid field of every
 * /proc/<pid>/stat: the gateway's storage workers are node:cluster children of its main process,
 * and counting the tree works whether there are none or many. CPU time of a descendant that exits
 * between two snapshots is lost (its parent's cutime only gets it once reaped, and workers are
 * not expected to exit during a measurement).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of utime/stime in /proc/<pid>/stat (100 on every common kernel). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface Stat {
  readonly pid: number;
  readonly ppid: number;
  /** user + system CPU seconds of all the process's threads. */
  readonly cpuSeconds: number;
  /** user + system CPU seconds of its children that have exited and been waited for. */
  readonly childrenCpuSeconds: number;
}

/** Parses /proc/<pid>/stat; null when the process is gone. */
function readStat(pid: number): Stat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
  const field = (n: number) => Number(fields[n - 3]);
  return {
    pid,
    ppid: field(4),
    cpuSeconds: (field(14) + field(15)) / TICKS_PER_SECOND,
    childrenCpuSeconds: (field(16) + field(17)) / TICKS_PER_SECOND,
  };
}

/** `root` and every live descendant of it, root first. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat === null) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push(stat.pid);
    children.set(stat.ppid, siblings);
  }
  if (readStat(root) === null) return [];
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0 && tree.length < 10_000) {
    const pid = queue.shift() as number;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** CPU seconds used so far by each of `pids` that still runs. */
export function cpuSecondsOf(pids: readonly number[]): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat !== null) seconds.set(pid, stat.cpuSeconds);
  }
  return seconds;
}

/** CPU seconds of this process's children that have exited and been reaped (e.g. a finished wrk). */
export function reapedChildrenCpuSeconds(): number {
  return readStat(process.pid)?.childrenCpuSeconds ?? 0;
}

/** VmRSS of the process in bytes, or null when it is gone. */
export function rssBytes(pid: number): number | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return null;
  }
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(text);
  return match === null ? null : Number(match[1]) * 1024;
}

/** RSS of every process of the tree rooted at `root`. */
export function treeRss(root: number): Map<number, number> {
  const rss = new Map<number, number>();
  for (const pid of processTree(root)) {
    const bytes = rssBytes(pid);
    if (bytes !== null) rss.set(pid, bytes);
  }
  return rss;
}

/**
 * Samples the RSS of a process tree every `everyMs` until stopped; returns each process's peak.
 * The tree is re-walked on every sample, so a worker started meanwhile is seen too.
 */
export function sampleTreeRss(root: number, everyMs: number): () => Map<number, number> {
  const peaks = new Map<number, number>();
  const sample = () => {
    for (const [pid, bytes] of treeRss(root)) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, bytes));
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return () => {
    clearInterval(timer);
    sample();
    return peaks;
  };
}

/** The command name of a process (/proc/<pid>/comm), for tables. */
export function commandName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

/** The command line of a process (/proc/<pid>/cmdline, arguments joined by spaces); '' when gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}
