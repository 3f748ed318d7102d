import type { GatewayMetrics } from '../observability/metrics.js';
import type { RequestListener } from './listen.js';

/** /metrics in the Prometheus text format, on its own listener so it is never exposed with the API. */
export function createMetricsListener(metrics: GatewayMetrics): RequestListener {
  return (request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    metrics.registry
      .metrics()
      .then((text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text))
      .catch((error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics collection failed: ${String(error)}\n`),
      );
  };
}
