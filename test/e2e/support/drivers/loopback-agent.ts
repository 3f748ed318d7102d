import dns from 'node:dns';
import http from 'node:http';

/**
 * How a JavaScript client reaches virtual-hosted buckets (`<bucket>.s3.localhost`) on loopback
 * without /etc/hosts: an HTTP agent whose resolver answers 127.0.0.1 for the storage domain and
 * every name under it. Other names resolve normally.
 */
export interface LoopbackResolver {
  readonly agent: http.Agent;
  /** Every name the agent answered 127.0.0.1 for, in order (one per new connection). */
  readonly resolved: string[];
  /** Closes the agent's idle keep-alive connections, so the next request connects (and resolves) anew. */
  dropIdleConnections(): void;
}

export function loopbackResolver(domain: string): LoopbackResolver {
  const resolved: string[] = [];
  const lookup = (hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void): void => {
    const name = hostname.toLowerCase();
    if (name !== domain && !name.endsWith(`.${domain}`)) {
      dns.lookup(hostname, options, callback);
      return;
    }
    resolved.push(name);
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  };
  const agent = new http.Agent({ keepAlive: true, lookup: lookup as unknown as http.AgentOptions['lookup'] });
  return {
    agent,
    resolved,
    dropIdleConnections: () => {
      for (const sockets of Object.values(agent.freeSockets))
        for (const socket of sockets ?? []) socket.destroy();
    },
  };
}
