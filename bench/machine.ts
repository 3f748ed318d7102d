/** Facts about the machine a run was made on, printed first and kept in the results. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface Machine {
  readonly node: string;
  readonly platform: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryMiB: number;
  readonly wrk: string;
  readonly loadAverageAtStart: number;
}

function wrkVersion(): string {
  try {
    // `wrk -v` prints its version and usage, and exits 1.
    execFileSync('wrk', ['-v'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const output = String((error as { stdout?: string }).stdout ?? '');
    const match = /^wrk (\S+)/m.exec(output);
    if (match !== null) return match[1] as string;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'not installed';
  }
  return 'unknown';
}

export function describeMachine(): Machine {
  return {
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpu: os.cpus()[0]?.model ?? 'unknown CPU',
    cores: os.availableParallelism(),
    memoryMiB: Math.round(os.totalmem() / 2 ** 20),
    wrk: wrkVersion(),
    loadAverageAtStart: os.loadavg()[0] ?? 0,
  };
}

export function printMachine(machine: Machine, quick: boolean): void {
  console.log(`s3-gateway benchmarks${quick ? ' (--quick: short smoke run, numbers are rough)' : ''}`);
  console.log(
    `  machine: ${machine.cores} × ${machine.cpu}, ${Math.round(machine.memoryMiB / 1024)} GiB, ${machine.platform}; ` +
      `Node ${machine.node}; wrk ${machine.wrk}; load average ${machine.loadAverageAtStart.toFixed(2)}`,
  );
  if (!machine.node.startsWith('v24.')) console.log('  warning: the project pins Node 24; run through npm.');
  if (machine.loadAverageAtStart > machine.cores / 2) {
    console.log(
      `  warning: load average ${machine.loadAverageAtStart.toFixed(1)} before starting: other work is running, so ` +
        'absolute numbers will be low and noisy; the ratios (alternating rounds) much less so.',
    );
  }
}
