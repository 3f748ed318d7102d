import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** A full object id: SHA-1, or SHA-256 in repositories that use it. */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** HEAD names a branch, which could in principle name another; git itself stops after a few. */
const MAX_SYMBOLIC_DEPTH = 5;

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** `.git` is the repository itself, or (a worktree, a submodule) a file naming where it is. */
function gitDirectory(checkout: string): string | null {
  const dotGit = path.join(checkout, '.git');
  if (isDirectory(dotGit)) return dotGit;
  const pointer = /^gitdir:\s*(.+)$/m.exec(readText(dotGit) ?? '')?.[1]?.trim();
  return pointer === undefined ? null : path.resolve(checkout, pointer);
}

/** A ref's value: loose in the worktree's or the shared directory, else in packed-refs. */
function refValue(gitDir: string, commonDir: string, ref: string): string | null {
  for (const directory of new Set([gitDir, commonDir])) {
    const loose = readText(path.join(directory, ref));
    if (loose !== null) return loose.trim();
  }
  for (const line of (readText(path.join(commonDir, 'packed-refs')) ?? '').split('\n')) {
    // "<id> <ref>"; comments start with "#", peeled tags with "^".
    const [id, name] = line.trim().split(' ', 2);
    if (name === ref && id !== undefined && OBJECT_ID.test(id)) return id;
  }
  return null;
}

/**
 * The commit checked out in `checkout`, read from the files git keeps (HEAD, the ref it names,
 * packed-refs), without running git, which a server need not have installed; null when it is not a
 * git checkout or the files say nothing usable.
 */
export function checkoutCommit(checkout: string): string | null {
  const gitDir = gitDirectory(checkout);
  if (gitDir === null) return null;
  const common = readText(path.join(gitDir, 'commondir'))?.trim();
  const commonDir = common === undefined ? gitDir : path.resolve(gitDir, common);
  let value = readText(path.join(gitDir, 'HEAD'))?.trim() ?? null;
  for (let depth = 0; value !== null && value.startsWith('ref:') && depth < MAX_SYMBOLIC_DEPTH; depth += 1) {
    value = refValue(gitDir, commonDir, value.slice('ref:'.length).trim());
  }
  return value !== null && OBJECT_ID.test(value) ? value : null;
}

/**
 * What /v1/version reports as the build commit: GATEWAY_BUILD_COMMIT (the Docker image sets it at
 * build time, where no .git is copied), else the commit of the checkout the gateway runs from.
 */
export function buildCommit(fromEnvironment: string | undefined, checkout: string): string {
  const given = fromEnvironment?.trim();
  if (given !== undefined && given !== '') return given;
  return checkoutCommit(checkout) ?? 'unknown';
}
