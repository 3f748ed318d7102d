import dns from 'node:dns';
import http from 'node:http';

/**
 * An HTTP agent whose resolver answers 127.0.0.1 for the storage domain and every name under it
 * (`<bucket>.s3.localhost`), so a JavaScript client reaches virtual-hosted buckets on loopback
 * without /etc/hosts. Other names resolve normally. Every name it answered for is recorded.
 */
export function loopbackAgent(domain: string, resolved: string[]): http.Agent {
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
  return new http.Agent({ keepAlive: true, lookup: lookup as unknown as http.AgentOptions['lookup'] });
}
