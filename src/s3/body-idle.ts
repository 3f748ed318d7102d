/**
 * S3 refuses an upload whose client stops sending with 400 RequestTimeout. The gateway does the
 * same rather than wait on the store's own timeouts (which read as an outage, 503) or hold the
 * connection for ever: every reader of a request body watches it with this timer.
 */
import type http from 'node:http';
import { S3Error } from '../protocol/errors.js';
import type { Exchange } from './exchange.js';

/**
 * Watches the exchange's request body; a client that went silent hears RequestTimeout and its
 * connection closes after the answer (it is not going to finish the body it started).
 */
export function watchUploadBody(exchange: Exchange, onTimeout: (error: S3Error) => void): () => void {
  return watchBodyIdle(exchange.request, exchange.bodyIdleTimeoutMs, () => {
    if (!exchange.response.headersSent) exchange.response.setHeader('connection', 'close');
    onTimeout(new S3Error('RequestTimeout'));
  });
}

/**
 * Calls `onIdle` once when no byte of the request body arrived for `idleMs` while the gateway was
 * reading it. While the body is paused (the store reads slower than the client sends, or nothing
 * reads yet) or bytes wait unread in its buffer, the silence is the gateway's, not the client's,
 * and the timer starts over. Returns a function that stops watching.
 */
export function watchBodyIdle(request: http.IncomingMessage, idleMs: number, onIdle: () => void): () => void {
  const check = (): void => {
    if (request.complete || request.destroyed) return;
    if (request.isPaused() || request.readableLength > 0) {
      timer.refresh();
      return;
    }
    stop();
    onIdle();
  };
  const timer = setTimeout(check, idleMs);
  const onData = (): void => {
    timer.refresh();
  };
  const stop = (): void => {
    clearTimeout(timer);
    request.off('data', onData);
    request.off('end', stop);
    request.off('close', stop);
  };
  // prependListener, not on(): Readable.on('data') would set a paused body flowing, and the timer
  // must only hear the bytes that others read.
  request.prependListener('data', onData);
  request.once('end', stop);
  request.once('close', stop);
  return stop;
}
