import type { ObjectStoreBackend } from '../backend/object-store.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Store } from '../store/index.js';

/** What the control plane is built from; assembled once by the runtime. */
export interface GatewayContext {
  readonly config: GatewayConfig;
  readonly store: Store;
  readonly backend: ObjectStoreBackend;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
  readonly jwtSecret: string;
  /** The storage endpoint's base URL as clients reach it (for presigning and the start-up banner). */
  readonly s3PublicUrl: string;
  readonly version: { product: string; commit: string; api: string };
  /** `draining` turns true when shutdown starts; readiness then answers 503. */
  readonly lifecycle: { readonly draining: boolean };
}
