import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A plain HTTP forward proxy on loopback through which command-line clients reach virtual-hosted
 * buckets (`<bucket>.s3.localhost:<port>`) without any DNS entry: the client is configured to use
 * the proxy (HTTP_PROXY, s3cmd's proxy_host), sends the absolute URL, and the proxy connects to the
 * gateway on loopback, passing the request through byte for byte (Host header included, since
 * SigV4 signs it). Only hosts under the storage domain on the gateway's port are forwarded.
 * `Expect: 100-continue` is relayed, so the client sends its body only when the gateway asks.
 */
export interface ForwardProxy {
  url: string;
  /** Host headers of the requests forwarded, in order. */
  hosts: string[];
  close(): Promise<void>;
}

export async function startForwardProxy(gatewayPort: number, domain: string): Promise<ForwardProxy> {
  const hosts: string[] = [];
  const server = http.createServer();
  const handle = (request: http.IncomingMessage, response: http.ServerResponse): void => {
    let target: URL;
    try {
      target = new URL(request.url ?? '');
    } catch {
      response.writeHead(400).end('absolute URL expected');
      return;
    }
    const hostname = target.hostname.toLowerCase();
    const allowed =
      (hostname === domain || hostname.endsWith(`.${domain}`)) && Number(target.port) === gatewayPort;
    if (target.protocol !== 'http:' || !allowed) {
      response.writeHead(403).end(`not forwarding to ${target.host}`);
      return;
    }
    const headers: string[] = [];
    for (let index = 0; index < request.rawHeaders.length; index += 2) {
      const name = request.rawHeaders[index]!;
      if (/^proxy-/i.test(name)) continue;
      if (name.toLowerCase() === 'host') hosts.push(request.rawHeaders[index + 1]!);
      headers.push(name, request.rawHeaders[index + 1]!);
    }
    const upstream = http.request({
      host: '127.0.0.1',
      port: gatewayPort,
      method: request.method,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false,
    });
    upstream.on('continue', () => response.writeContinue());
    upstream.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
      answer.pipe(response);
    });
    upstream.on('error', () => {
      // The gateway may answer and close before reading a refused body; the answer already went out.
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    request.pipe(upstream);
  };
  server.on('request', handle);
  server.on('checkContinue', handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hosts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
