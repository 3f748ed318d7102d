import type { RequestListener } from './listen.js';

/** The text of one scrape: this process's registry, or every process's aggregated (cluster). */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** /metrics in the Prometheus text format, on its own listener so it is never exposed with the API. */
export function createMetricsListener(source: MetricsSource): RequestListener {
  return (request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    source
      .metrics()
      .then((text) => response.writeHead(200, { 'content-type': source.contentType }).end(text))
      .catch((error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics collection failed: ${String(error)}\n`),
      );
  };
}
