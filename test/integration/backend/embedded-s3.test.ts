import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedS3, type EmbeddedS3 } from '../../../src/backend/embedded-s3.js';
import { S3Backend } from '../../../src/backend/s3-backend.js';

describe('the embedded object store of local mode', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'gw-embedded-s3-'));
  let embedded: EmbeddedS3;
  let backend: S3Backend;

  beforeAll(async () => {
    embedded = await startEmbeddedS3(directory);
    backend = new S3Backend({
      endpoint: embedded.url,
      region: 'us-east-1',
      accessKeyId: embedded.accessKeyId,
      secretAccessKey: embedded.secretAccessKey,
      timeoutMs: 5000,
      label: 'embedded',
    });
  });
  afterAll(async () => {
    await backend.close();
    await embedded.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('pages through a listing with continuation tokens', async () => {
    await backend.createBucket('paged');
    const client = new S3Client({
      endpoint: embedded.url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: embedded.accessKeyId, secretAccessKey: embedded.secretAccessKey },
    });
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      await client.send(new PutObjectCommand({ Bucket: 'paged', Key: key, Body: key }));
    }
    client.destroy();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await backend.listObjects('paged', { limit: 2, cursor });
      seen.push(...page.objects.map((object) => object.key));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('frees its port when stopped', async () => {
    const other = await startEmbeddedS3(path.join(directory, 'other'));
    const url = other.url;
    expect((await fetch(url)).status).toBeLessThan(500);
    await other.stop();
    await expect(fetch(url)).rejects.toThrow();
  });
});
