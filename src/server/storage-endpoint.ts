/**
 * The storage endpoint's listener, as the main process runs it (one process) and as each storage
 * worker runs it (several processes sharing the port through node:cluster).
 */
import type http from 'node:http';
import { answerClientError, answerConnect } from '../s3/answers/client-error.js';
import { createS3Listener, type StorageServices } from '../s3/pipeline.js';
import { closeServer, createServer, listen, urlOf, type ListenOptions } from './listen.js';

export interface StorageEndpoint {
  readonly server: http.Server;
  readonly url: string;
  /** Stops accepting, lets requests in flight finish within `graceMs`, then releases the backend connections. */
  close(graceMs: number): Promise<void>;
}

export async function startStorageEndpoint(
  services: StorageServices,
  listening: ListenOptions = {},
): Promise<StorageEndpoint> {
  const { config } = services;
  // The storage pipeline refuses a missing Host itself, so that the answer is an S3 error document.
  const server = createServer(
    () => undefined,
    { certFile: config.s3.tlsCertFile, keyFile: config.s3.tlsKeyFile },
    { requireHostHeader: false },
  );
  server.on('clientError', answerClientError);
  server.on('connect', answerConnect);
  const listener = createS3Listener(services);
  // Once closing, every answer ends its connection: a keep-alive client would otherwise go on
  // sending to this process until the grace period cuts it off, instead of to the others.
  let closing = false;
  const serve = (request: http.IncomingMessage, response: http.ServerResponse): void => {
    if (closing) response.shouldKeepAlive = false;
    listener(request, response);
  };
  server.on('request', serve);
  // With a 'checkContinue' listener Node leaves `Expect: 100-continue` to the endpoint, which
  // sends 100 Continue only once the request is authenticated and authorised.
  server.on('checkContinue', serve);
  // S3 ignores an Expect it does not know (an empty one included); Node would answer 417.
  server.on('checkExpectation', serve);
  try {
    // Reservations taken before this process is registered could be released by the others.
    await listener.ready;
    const url = urlOf(
      await listen(server, config.listen.s3, 'GATEWAY_S3_LISTEN', listening),
      config.s3.tlsCertFile !== null,
    );
    return {
      server,
      url,
      close: async (graceMs) => {
        closing = true;
        await closeServer(server, graceMs);
        await listener.close();
      },
    };
  } catch (error) {
    await listener.close();
    throw error;
  }
}
