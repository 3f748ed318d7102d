export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

export interface Stage {
  base: string;
  name: string | null;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARGs declared before the first FROM, with their defaults. */
  globalArgs: Record<string, string>;
  stages: Stage[];
}

/** Parses a Dockerfile: joins continuation lines, drops comments, splits it into build stages. */
export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  const lines = text.split('\n');
  let pending = '';
  let start = 0;
  lines.forEach((raw, index) => {
    const line = raw.trimEnd();
    if (pending === '' && /^\s*(#|$)/.test(line)) return;
    if (pending !== '' && /^\s*#/.test(line)) return;
    if (pending === '') start = index + 1;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const full = `${pending}${line}`.trim();
    pending = '';
    const match = /^(\w+)\s*(.*)$/s.exec(full);
    if (match)
      instructions.push({
        keyword: (match[1] as string).toUpperCase(),
        args: (match[2] as string).trim(),
        line: start,
      });
  });

  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const parts = instruction.args.split(/\s+/).filter((part) => !part.startsWith('--'));
      const base = (parts[0] ?? '').replace(
        /\$\{?(\w+)\}?/g,
        (_whole, name: string) => globalArgs[name] ?? '',
      );
      const name = parts[1]?.toUpperCase() === 'AS' ? (parts[2] ?? null) : null;
      stages.push({ base, name, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) {
      if (instruction.keyword === 'ARG') {
        const [name = '', value = ''] = instruction.args.split('=');
        globalArgs[name.trim()] = value.trim();
      }
      continue;
    }
    stage.instructions.push(instruction);
  }
  return { globalArgs, stages };
}

/** KEY=value pairs of ENV instructions (quoted values unquoted), in order. */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const instruction of stage.instructions.filter((item) => item.keyword === 'ENV')) {
    for (const match of instruction.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
      const value = match[2] as string;
      env[match[1] as string] = value.startsWith('"') ? (JSON.parse(value) as string) : value;
    }
  }
  return env;
}

export interface Copy {
  from: string | null;
  sources: string[];
  destination: string;
  /** The destination is a directory the sources go into (it ends with "/", or there are several). */
  intoDirectory: boolean;
}

/** COPY instructions of a stage, destinations made absolute against the WORKDIR in effect. */
export function copiesOf(stage: Stage): Copy[] {
  const copies: Copy[] = [];
  let workdir = '/';
  for (const instruction of stage.instructions) {
    if (instruction.keyword === 'WORKDIR') {
      workdir = instruction.args.startsWith('/')
        ? instruction.args
        : `${workdir.replace(/\/$/, '')}/${instruction.args}`;
    }
    if (instruction.keyword !== 'COPY' && instruction.keyword !== 'ADD') continue;
    const words = instruction.args.split(/\s+/);
    const flags = words.filter((word) => word.startsWith('--'));
    const paths = words.filter((word) => !word.startsWith('--'));
    const from = flags.find((flag) => flag.startsWith('--from='))?.slice('--from='.length) ?? null;
    const destination = paths.at(-1) as string;
    const sources = paths.slice(0, -1).map((source) => source.replace(/^\.\//, '').replace(/\/$/, ''));
    copies.push({
      from,
      sources,
      destination: absolute(workdir, destination),
      intoDirectory: destination.endsWith('/') || destination === '.' || sources.length > 1,
    });
  }
  return copies;
}

export function workdirOf(stage: Stage): string {
  let workdir = '/';
  for (const instruction of stage.instructions) {
    if (instruction.keyword === 'WORKDIR') {
      workdir = instruction.args.startsWith('/')
        ? instruction.args
        : `${workdir.replace(/\/$/, '')}/${instruction.args}`;
    }
  }
  return workdir;
}

function absolute(workdir: string, target: string): string {
  const joined = target.startsWith('/') ? target : `${workdir.replace(/\/$/, '')}/${target}`;
  const parts: string[] = [];
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** The exec-form (JSON array) arguments of a CMD, ENTRYPOINT or HEALTHCHECK … CMD instruction. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) {
    throw new Error(`not an exec-form array: ${args}`);
  }
  return parsed;
}
