/** Opens the object store the configuration names, as the gateway and its admin commands use it. */
import path from 'node:path';
import type { GatewayConfig } from '../config/schema.js';
import { startEmbeddedS3, type EmbeddedS3 } from './embedded-s3.js';
import type { ObjectStoreBackend } from './object-store.js';
import { S3Backend } from './s3-backend.js';

/** The configured object store, or the embedded one under the data directory when none is set. */
export async function openBackend(
  config: GatewayConfig,
): Promise<{ backend: ObjectStoreBackend; embedded: EmbeddedS3 | null }> {
  const timeoutMs = config.backend.timeoutSeconds * 1000;
  if (config.backend.url === null) {
    const embedded = await startEmbeddedS3(path.join(config.dataDir, 'objects'));
    const backend = new S3Backend({
      endpoint: embedded.url,
      region: config.backend.region,
      accessKeyId: embedded.accessKeyId,
      secretAccessKey: embedded.secretAccessKey,
      timeoutMs,
      label: `embedded s3rver (${embedded.directory})`,
    });
    return { backend, embedded };
  }
  const backend = new S3Backend({
    endpoint: config.backend.url,
    region: config.backend.region,
    accessKeyId: config.backend.accessKeyId as string,
    secretAccessKey: config.backend.secretAccessKey as string,
    timeoutMs,
    label: 'object store',
  });
  return { backend, embedded: null };
}
