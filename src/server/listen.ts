import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { parseListenAddress } from '../config/addresses.js';

export type RequestListener = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export interface TlsFiles {
  certFile: string | null;
  keyFile: string | null;
}

/** HTTPS when a certificate and key are configured, plain HTTP otherwise (loopback or behind a TLS load balancer). */
export function createServer(
  listener: RequestListener,
  tls: TlsFiles,
  extra: Pick<http.ServerOptions, 'requireHostHeader'> = {},
): http.Server {
  const options: http.ServerOptions = {
    // Slow clients must not hold sockets forever; large uploads still stream (no total body timeout).
    headersTimeout: 60_000,
    requestTimeout: 0,
    keepAliveTimeout: 5_000,
    ...extra,
  };
  if (tls.certFile !== null && tls.keyFile !== null) {
    return https.createServer(
      { ...options, cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) },
      listener,
    );
  }
  return http.createServer(options, listener);
}

export interface ListenOptions {
  /** Instead of the address's port (a storage worker joining the port the first one got). */
  readonly port?: number;
  /**
   * A socket of this process's own on a port other processes share (SO_REUSEPORT): the kernel
   * spreads new connections over them, and each stops taking new ones when it closes its own.
   */
  readonly reusePort?: boolean;
}

/** A listener that could not bind, named by the setting that chose its address. */
export class ListenError extends Error {
  constructor(setting: string, address: string, cause: NodeJS.ErrnoException) {
    const why =
      cause.code === 'EADDRINUSE'
        ? 'the address is in use (another gateway, or another program, listens there)'
        : cause.code === 'EACCES'
          ? 'permission denied (ports below 1024 need privileges)'
          : cause.code === 'EADDRNOTAVAIL'
            ? 'no interface of this host has that address'
            : cause.message;
    super(`cannot listen on ${setting}=${address}: ${why}; set ${setting} to a free host:port`, { cause });
    this.name = 'ListenError';
  }
}

/** Binds `server` to `address`, which the setting `setting` chose (named in a ListenError). */
export function listen(
  server: http.Server,
  address: string,
  setting: string,
  options: ListenOptions = {},
): Promise<AddressInfo> {
  const parsed = parseListenAddress(address);
  const port = options.port ?? parsed.port;
  const shared = options.reusePort === true ? { reusePort: true, exclusive: true } : {};
  return new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException): void => reject(new ListenError(setting, address, error));
    server.once('error', fail);
    server.listen({ port, host: parsed.host, ...shared }, () => {
      server.off('error', fail);
      resolve(server.address() as AddressInfo);
    });
  });
}

export function urlOf(address: AddressInfo, secure: boolean): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${secure ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;
}

/** Stops accepting, lets open requests finish until the deadline, then cuts what is left. */
export function closeServer(server: http.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
