/**
 * What the main process and its storage workers say to each other over node:cluster's IPC
 * channel. Every message carries a `type` under the `gateway:` prefix, so that messages of other
 * libraries on the same channel (prom-client's, for one) are told apart.
 */
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { GatewayConfig } from '../config/schema.js';
import type { Invalidation } from '../store/invalidation.js';
import type { SharedDatabase } from '../store/database.js';

/** What a worker needs that it cannot work out itself: sent once, right after it starts. */
export interface WorkerAssignment {
  readonly type: 'gateway:assignment';
  /** 1..GATEWAY_WORKERS; a replacement takes the slot of the worker it replaces. */
  readonly slot: number;
  readonly config: GatewayConfig;
  /**
   * The storage port the workers share, once the first has bound it (GATEWAY_S3_LISTEN may ask
   * for any free port); null: the configured one.
   */
  readonly port: number | null;
  /** The master key as the main process resolved it (configured, or generated in local mode), base64. */
  readonly masterKey: string;
  readonly database: SharedDatabase;
  readonly backend: {
    readonly endpoint: string;
    readonly region: string;
    readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  };
}

export type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];

/** Main process → worker. */
export type ToWorker =
  | WorkerAssignment
  /** A change made through this instance, for a database that cannot carry NOTIFY to the worker. */
  | { readonly type: 'gateway:invalidate'; readonly invalidation: Invalidation }
  | { readonly type: 'gateway:metrics-request'; readonly id: number }
  /** Stop accepting; let requests in flight finish within `graceMs`; exit. */
  | { readonly type: 'gateway:shutdown'; readonly graceMs: number };

/** Worker → main process. */
export type FromWorker =
  | { readonly type: 'gateway:ready'; readonly url: string }
  | { readonly type: 'gateway:failed'; readonly message: string }
  | { readonly type: 'gateway:metrics'; readonly id: number; readonly metrics: WorkerMetrics };

export function isMessage<T extends { type: string }>(value: unknown): value is T {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { type?: unknown }).type === 'string' &&
    (value as { type: string }).type.startsWith('gateway:')
  );
}
