/**
 * A TCP relay in front of a server (PostgreSQL) that a test can cut and restore, to make the
 * server "go away" for the process under test without touching the server that other tests use.
 * Cut: every relayed connection is reset and new ones are refused (ECONNREFUSED), as when the
 * server stopped; restore: it listens again on the same port.
 */
import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const relay = (client: net.Socket): void => {
    const server = net.connect(target.port, target.host);
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      // A cut connection ends in a reset on both sides; that is the point, not a failure.
      socket.on('error', () => undefined);
    }
    client.pipe(server).pipe(client);
    client.once('close', () => server.destroy());
    server.once('close', () => client.destroy());
  };
  let listener = net.createServer(relay);
  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(port, '127.0.0.1', () => resolve((listener.address() as net.AddressInfo).port));
    });
  const port = await listen(0);
  const stop = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
    for (const socket of sockets) socket.resetAndDestroy();
    await closed;
  };
  return {
    port,
    cut: stop,
    restore: async () => {
      listener = net.createServer(relay);
      await listen(port);
    },
    close: async () => {
      if (listener.listening) await stop();
    },
  };
}
