import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ORGANISATION_OVERFLOW_LABEL,
  REFUSAL_REASONS,
  type RefusalReason,
} from '../../../src/observability/metrics.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { metricDeltas, metricValue, scrapeMetrics } from '../../support/metrics.js';
import { pathStyleClient } from '../../support/s3/clients.js';
import {
  createBucket,
  createCredential,
  createOrganisation,
  defaultOrganisation,
} from '../../support/s3/fixtures.js';
import { sendRaw, signedHeaders } from '../../support/s3/raw-requests.js';

const REASONS: readonly RefusalReason[] = REFUSAL_REASONS;

let gw: TestGateway;
let s3: S3Client;

const scrape = () => scrapeMetrics(gw.metricsUrl);

function refusals(text: string): Record<RefusalReason, number> {
  return Object.fromEntries(
    REASONS.map((reason) => [reason, metricValue(text, `gateway_s3_refusals_total{reason="${reason}"}`)]),
  ) as Record<RefusalReason, number>;
}

/** Runs `action` and asserts that it moved the refusal counter of `reason` by one and no other. */
async function expectRefusal(reason: RefusalReason, action: () => Promise<unknown>): Promise<void> {
  const before = refusals(await scrape());
  await action().catch(() => undefined);
  const after = refusals(await scrape());
  const moved = Object.fromEntries(
    REASONS.filter((name) => after[name] !== before[name]).map((name) => [name, after[name] - before[name]]),
  );
  expect(moved).toEqual({ [reason]: 1 });
}

function rawGet(path: string, headers: Record<string, string>) {
  return sendRaw(gw.s3Url, { method: 'GET', target: path, headers });
}

beforeAll(async () => {
  gw = await startTestGateway();
  s3 = pathStyleClient(gw);
  await createBucket(gw, 'metered');
  await createBucket(gw, 'metered-public', { public: true });
  await s3.send(new PutObjectCommand({ Bucket: 'metered', Key: 'a.txt', Body: 'hello metrics' }));
});
afterAll(() => gw.stop());

describe('storage metrics after real traffic', () => {
  it('count requests by operation, status and S3 code, with bytes and latency', async () => {
    const before = await scrape();
    await s3
      .send(new GetObjectCommand({ Bucket: 'metered', Key: 'a.txt' }))
      .then((r) => r.Body?.transformToString());
    // Raw, so the error document's size is known: it is response body too.
    const missingAnswer = await rawGet(
      '/metered/missing.txt',
      await signedHeaders({
        credential: gw.credential,
        method: 'GET',
        baseUrl: gw.s3Url,
        path: '/metered/missing.txt',
        payloadHash: 'UNSIGNED-PAYLOAD',
      }),
    );
    expect(missingAnswer.status).toBe(404);
    const after = await scrape();
    const ok = 'gateway_s3_requests_total{operation="GetObject",status="200",code=""}';
    const missing = 'gateway_s3_requests_total{operation="GetObject",status="404",code="NoSuchKey"}';
    expect(metricValue(after, ok) - metricValue(before, ok)).toBe(1);
    expect(metricValue(after, missing) - metricValue(before, missing)).toBe(1);
    const bytesOut = 'gateway_s3_bytes_out_total{operation="GetObject"}';
    expect(metricValue(after, bytesOut) - metricValue(before, bytesOut)).toBe(
      'hello metrics'.length + Buffer.byteLength(missingAnswer.body),
    );
    const ttfb = 'gateway_s3_time_to_first_byte_seconds_count{operation="GetObject"}';
    expect(metricValue(after, ttfb) - metricValue(before, ttfb)).toBe(2);
    const organisation = 'gateway_organisation_requests_total{organisation="default"}';
    expect(metricValue(after, organisation) - metricValue(before, organisation)).toBe(2);
    expect(metricValue(after, 'gateway_s3_in_flight_requests')).toBe(0);
    expect(metricValue(after, 'gateway_s3_in_flight_streams')).toBe(0);
  });

  /** What each reason is counted for: set-up first, then the request that is refused. */
  const refused: [RefusalReason, () => Promise<() => Promise<unknown>>][] = [
    [
      'signature',
      async () => {
        const wrongSecret = { accessKeyId: gw.credential.accessKeyId, secret: 'x'.repeat(40) };
        return () =>
          pathStyleClient(gw, wrongSecret).send(new GetObjectCommand({ Bucket: 'metered', Key: 'a.txt' }));
      },
    ],
    [
      'unknown_key',
      async () => {
        const unknown = { accessKeyId: 'GWK1UNKNOWNUNKNOWN22', secret: 'y'.repeat(40) };
        return () =>
          pathStyleClient(gw, unknown).send(new GetObjectCommand({ Bucket: 'metered', Key: 'a.txt' }));
      },
    ],
    [
      'expired',
      async () => {
        const expired = await createCredential(gw, { expiresAt: new Date(Date.now() - 60_000) });
        return () =>
          pathStyleClient(gw, expired).send(new GetObjectCommand({ Bucket: 'metered', Key: 'a.txt' }));
      },
    ],
    [
      'scope',
      async () => {
        const reader = await createCredential(gw, { scope: { buckets: ['metered'], level: 'read-only' } });
        return () =>
          pathStyleClient(gw, reader).send(
            new PutObjectCommand({ Bucket: 'metered', Key: 'b.txt', Body: 'b' }),
          );
      },
    ],
    [
      'skew',
      async () => {
        const headers = await signedHeaders({
          credential: gw.credential,
          method: 'GET',
          baseUrl: gw.s3Url,
          path: '/metered/a.txt',
          payloadHash: 'UNSIGNED-PAYLOAD',
          signingDate: new Date(Date.now() - 60 * 60_000),
        });
        return () => rawGet('/metered/a.txt', headers);
      },
    ],
    [
      'malformed',
      async () => () =>
        rawGet('/metered/a.txt', {
          authorization: 'AWS4-HMAC-SHA256 Credential=nonsense',
          'user-agent': 'test-client',
        }),
    ],
    [
      'presign_expired',
      async () => {
        const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: 'metered', Key: 'a.txt' }), {
          expiresIn: 1,
          signingDate: new Date(Date.now() - 10_000),
        });
        return () => fetch(url);
      },
    ],
    [
      'ban',
      async () => () =>
        s3.send(new GetObjectCommand({ Bucket: 'metered', Key: 'a.txt', IfNoneMatch: '"abc"' })),
    ],
    ['bot_protection', async () => () => rawGet('/metered-public/a.txt', {})],
    ['anonymous', async () => () => rawGet('/metered/a.txt', { 'user-agent': 'curl/8.0' })],
    [
      'checksum',
      async () => {
        const headers = await signedHeaders({
          credential: gw.credential,
          method: 'PUT',
          baseUrl: gw.s3Url,
          path: '/metered/c.txt',
          payloadHash: 'UNSIGNED-PAYLOAD',
          headers: { 'x-amz-checksum-crc32': 'AAAAAA==' },
        });
        return () =>
          sendRaw(gw.s3Url, {
            method: 'PUT',
            target: '/metered/c.txt',
            headers,
            body: 'not empty, so not that crc',
          });
      },
    ],
    [
      'suspended',
      async () => {
        const organisation = await defaultOrganisation(gw);
        return async () => {
          await gw.gateway.context.store.organisations.suspend(organisation.id, 'metrics test');
          try {
            return await s3.send(new GetObjectCommand({ Bucket: 'metered', Key: 'a.txt' }));
          } finally {
            await gw.gateway.context.store.organisations.reinstate(organisation.id);
          }
        };
      },
    ],
  ];

  it.each(refused)(
    'count %s refusals under their own reason, and under no other',
    async (reason, prepare) => {
      await expectRefusal(reason, await prepare());
    },
  );

  it('count credential-cache hits, misses and invalidations', async () => {
    const credential = await createCredential(gw);
    const client = pathStyleClient(gw, credential);
    const series = (event: string) =>
      `gateway_credential_cache_events_total{kind="credential",event="${event}"}`;
    const before = await scrape();
    await client.send(new GetObjectCommand({ Bucket: 'metered', Key: 'a.txt' }));
    await client.send(new GetObjectCommand({ Bucket: 'metered', Key: 'a.txt' }));
    await gw.gateway.context.store.credentials.delete(credential.accessKeyId);
    const after = await scrape();
    // A new key: looked up once, then served from the cache, then dropped from it by the deletion.
    expect(metricDeltas(before, after, [series('miss'), series('hit'), series('invalidation')])).toEqual({
      [series('miss')]: 1,
      [series('hit')]: 1,
      [series('invalidation')]: 1,
    });
  });
});

describe('per-organisation metrics with GATEWAY_METRICS_MAX_ORGANISATIONS', () => {
  it('counts the organisations beyond the configured limit under the overflow label', async () => {
    const small = await startTestGateway({ GATEWAY_METRICS_MAX_ORGANISATIONS: '1' });
    try {
      expect(small.gateway.context.metrics.organisationLabels.limit).toBe(1);
      const first = await defaultOrganisation(small);
      // Named like the old overflow value: it must get a series of its own, not be mistaken for one.
      const second = await createOrganisation(small, 'other');
      await createBucket(small, 'first-bucket', { organisationId: first.id });
      await createBucket(small, 'second-bucket', { organisationId: second.id });
      const firstClient = pathStyleClient(small);
      const secondClient = pathStyleClient(
        small,
        await createCredential(small, { organisationId: second.id }),
      );
      await firstClient.send(new ListObjectsV2Command({ Bucket: 'first-bucket' }));
      await secondClient.send(new ListObjectsV2Command({ Bucket: 'second-bucket' }));
      await secondClient.send(new ListObjectsV2Command({ Bucket: 'second-bucket' }));
      const text = await (await fetch(`${small.metricsUrl}/metrics`)).text();
      const series = (label: string) => `gateway_organisation_requests_total{organisation="${label}"}`;
      expect(metricValue(text, series(first.name))).toBe(1);
      expect(metricValue(text, series(ORGANISATION_OVERFLOW_LABEL))).toBe(2);
      expect(text).not.toContain('organisation="other"');
    } finally {
      await small.stop();
    }
  });
});
