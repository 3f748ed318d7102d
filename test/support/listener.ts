import http from 'node:http';

/**
 * Whether `url` answers a GET on a connection of its own; false when the connection is refused or
 * cut. A pooled keep-alive connection (fetch's) would keep reaching a listener that stopped
 * accepting, so every probe connects anew.
 */
export function answersOnNewConnection(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    http
      .get(url, { agent: false }, (response) => {
        response.resume();
        resolve(true);
      })
      .on('error', () => resolve(false));
  });
}
