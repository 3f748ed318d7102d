import type http from 'node:http';
import { hostName } from '../../protocol/paths.js';

/**
 * The storage listener's liveness probe for orchestrators: 200 while the process serves requests,
 * touching neither the database nor the object store (readiness is the control plane's
 * /v1/health). `_gateway` can never be a bucket (underscores are not allowed in bucket names) and
 * virtual-hosted hosts are excluded, so the probe shadows no object.
 */
export const LIVENESS_PATH = '/_gateway/live';

export function isLivenessProbe(request: http.IncomingMessage, storageDomain: string): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (request.url !== LIVENESS_PATH) return false;
  return !hostName(request.headers.host).endsWith(`.${storageDomain}`);
}

export function answerLiveness(request: http.IncomingMessage, response: http.ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : 'live\n');
}
