/**
 * Whether this Node can run the gateway, checked before any dependency loads. A production install
 * (`npm ci --omit=dev`) runs on the host's own `node`, not the release pinned as a devDependency for
 * npm scripts; an older one would otherwise die inside a dependency (undici on Node 20: "Cannot read
 * properties of undefined (reading 'bind')"), which says nothing about the cause.
 */

/**
 * Why `running` (process.version, e.g. "v20.20.2") is older than the lowest major of `engines`
 * (package.json's engines.node, e.g. ">=24 <25"), or null. A newer release is let through: nothing
 * is known to fail on one, and refusing it would stop a host that upgraded.
 */
export function nodeVersionProblem(running: string, engines: string): string | null {
  const major = Number(/^v?(\d+)\./.exec(running)?.[1]);
  const lowest = Number(/(?:^|\s)>=\s*v?(\d+)/.exec(engines)?.[1]);
  if (!Number.isInteger(major) || !Number.isInteger(lowest) || major >= lowest) return null;
  return (
    `this is Node ${running}; the gateway needs Node ${lowest} (package.json engines: "${engines}"). ` +
    `Install Node ${lowest} on this host or run the Docker image: a production install ` +
    '(npm ci --omit=dev) runs on the host\'s node, not on the "node" package npm scripts use in a checkout.'
  );
}
