/** What the storage endpoint's steps share, built once per listener from the gateway context. */
import type { GatewayContext } from '../context.js';
import { createVerifier } from './authenticate.js';
import { createBackendAgent, type BackendAgent } from '../backend/connection.js';
import { BackendSigner } from '../backend/signer.js';
import { LastUsedRecorder } from './last-used.js';
import { BackendProxy } from './proxy.js';
import type { SigV4Verifier } from './sigv4/index.js';

export interface S3Dependencies {
  readonly context: GatewayContext;
  readonly verifier: SigV4Verifier;
  readonly agent: BackendAgent;
  readonly signer: BackendSigner;
  readonly proxy: BackendProxy;
  readonly lastUsed: LastUsedRecorder;
  readonly backendTimeoutMs: number;
}

export function createDependencies(context: GatewayContext): S3Dependencies {
  const { config, store, backend, metrics, logger } = context;
  const backendTimeoutMs = config.backend.timeoutSeconds * 1000;
  const agent = createBackendAgent(backend.endpoint);
  const signer = new BackendSigner(backend);
  return {
    context,
    verifier: createVerifier(store.cache, {
      regions: config.s3.regions,
      maxSkewSeconds: config.s3.maxSkewSeconds,
    }),
    agent,
    signer,
    proxy: new BackendProxy({
      endpoint: backend.endpoint,
      agent,
      signer,
      timeoutMs: backendTimeoutMs,
      metrics,
      logger,
    }),
    lastUsed: new LastUsedRecorder((ids, at) => store.credentials.touchLastUsed(ids, at), {
      onError: (error) => logger.warn({ err: error }, 'could not record credential last use'),
    }),
    backendTimeoutMs,
  };
}
