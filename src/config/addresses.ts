/**
 * Listen addresses and the URLs derived from them. Apart from the schema so that a storage worker,
 * which reads its configuration already validated by the main process, does not load the
 * validation library.
 */

/**
 * The part of the configuration the control plane's URL is derived from (GatewayConfig has it;
 * spelled out here so this module does not import the schema, which imports it).
 */
interface ControlAddressing {
  readonly control: { readonly publicUrl: string | null; readonly tlsCertFile: string | null };
  readonly listen: { readonly control: string };
}

/** host:port as the listener binds it: an empty host means all interfaces (0.0.0.0). */
export function parseListenAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[|\]$/g, '');
  return { host: host === '' ? '0.0.0.0' : host, port: Number(address.slice(colon + 1)) };
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '::0']);

/**
 * The control plane's URL as a client can use it, for messages that point there: the public URL,
 * else the listen address when it names one host and a fixed port; null when neither tells.
 */
export function advertisedControlUrl(config: ControlAddressing): string | null {
  if (config.control.publicUrl !== null) return config.control.publicUrl.replace(/\/+$/, '');
  const { host, port } = parseListenAddress(config.listen.control);
  if (port === 0 || WILDCARD_HOSTS.has(host)) return null;
  const scheme = config.control.tlsCertFile === null ? 'http' : 'https';
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Whether two listen addresses would bind the same port (port 0 picks a free port each time, so never). */
export function listenAddressesClash(a: string, b: string): boolean {
  const first = parseListenAddress(a);
  const second = parseListenAddress(b);
  if (first.port === 0 || first.port !== second.port) return false;
  const host = (value: string) => value.toLowerCase();
  return (
    host(first.host) === host(second.host) ||
    WILDCARD_HOSTS.has(first.host) ||
    WILDCARD_HOSTS.has(second.host)
  );
}
