/**
 * What every storage request leaves behind once its response is over: request, latency and byte
 * metrics (per operation, and per organisation through the bounded organisation label), usage
 * for authorised traffic, and one structured access log line without secrets (the request target
 * is logged with presigned signatures and credentials redacted).
 */
import { performance } from 'node:perf_hooks';
import type { AccessLog } from '../observability/access-log.js';
import { redactRequestTarget } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { UsageRecorder } from '../store/usage.js';
import type { Exchange } from './exchange.js';

/** The status logged for a client that went away before any response was sent (nginx's convention). */
const CLIENT_CLOSED = 499;

export interface Observers {
  readonly metrics: GatewayMetrics;
  readonly accessLog: AccessLog;
  readonly usage: UsageRecorder;
}

function seconds(from: number, to: number): number {
  return (to - from) / 1000;
}

export function observe(exchange: Exchange, observers: Observers): void {
  const { metrics } = observers;
  metrics.requestStarted();
  exchange.response.once('close', () => {
    metrics.requestFinished();
    const finishedAt = performance.now();
    const operation = exchange.operation;
    const status = exchange.response.headersSent ? exchange.response.statusCode : CLIENT_CLOSED;

    if (exchange.refusalReason !== null) metrics.refusals.inc({ reason: exchange.refusalReason });
    metrics.s3Duration.observe(operation, seconds(exchange.startedAt, finishedAt));
    if (exchange.headSentAt !== null) {
      metrics.s3TimeToFirstByte.observe(operation, seconds(exchange.startedAt, exchange.headSentAt));
    }

    const organisation = exchange.organisation;
    const label = organisation === null ? null : metrics.organisationLabels.label(organisation.name);
    metrics.countRequest({
      operation,
      status,
      code: exchange.errorCode,
      organisation: label,
      bytesIn: exchange.bytesIn,
      bytesOut: exchange.bytesOut,
    });
    if (organisation !== null && label !== null) {
      if (exchange.limitedBy !== null)
        metrics.organisationLimited.inc({ organisation: label, limit: exchange.limitedBy });
      if (exchange.authorised) {
        observers.usage.record({
          organisationId: organisation.id,
          bucket: exchange.bucket ?? '',
          accessKeyId: exchange.accessKeyId ?? '',
          bytesIn: exchange.bytesIn,
          bytesOut: exchange.bytesOut,
          // A request over a rate limit is counted as throttled, not as a request served.
          throttled: exchange.refusalReason === 'rate_limit',
        });
      }
    }

    observers.accessLog.record({
      requestId: exchange.id,
      method: exchange.method,
      target: redactRequestTarget(exchange.rawTarget),
      operation,
      status,
      code: exchange.errorCode,
      bucket: exchange.bucket,
      accessKeyId: exchange.accessKeyId,
      organisationId: organisation?.id ?? null,
      bytesIn: exchange.bytesIn,
      bytesOut: exchange.bytesOut,
      durationMs: Math.round((finishedAt - exchange.startedAt) * 10) / 10,
      userAgent: exchange.headers['user-agent'] ?? null,
      remoteAddress: exchange.remoteAddress,
    });
  });
}
