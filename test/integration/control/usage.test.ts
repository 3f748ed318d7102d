import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { type RawResponse, sendRaw, sha256Hex, signedHeaders } from '../../support/s3/raw-requests.js';
import { addOrganisation, ControlClient, login } from '../../support/control-plane.js';

/**
 * Usage metering from end to end: real signed traffic through the storage endpoint, read back
 * from GET /v1/organisation/usage. Bodies are sent as signed payloads (no aws-chunked framing), so
 * the bytes in and out are exactly the objects' sizes.
 */
let gw: TestGateway;
let owner: ControlClient;

beforeAll(async () => {
  gw = await startTestGateway({ GATEWAY_LOGIN_RATE_LIMIT_PER_MINUTE: '1000' });
  owner = await login(gw.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
});
afterAll(async () => {
  await gw?.stop();
});

interface Key {
  accessKeyId: string;
  secret: string;
}

async function credential(client: ControlClient, scope: object): Promise<Key> {
  const created = await client.post('/v1/credentials', { name: 'metered', scope });
  expect(created.status, created.text).toBe(201);
  return { accessKeyId: created.body.accessKeyId, secret: created.body.secret };
}

/**
 * One storage request, returned once the gateway has finished with it: usage is recorded when the
 * response closes on the server, which can be a moment after the client has read it. The access
 * log line is written in the same step, right after the usage, and names the request id.
 */
async function storage(method: string, path: string, key: Key | null, body?: string): Promise<RawResponse> {
  const payload = body ?? '';
  const headers =
    key === null
      ? { 'user-agent': 'usage-test/1' }
      : await signedHeaders({
          credential: key,
          method,
          baseUrl: gw.s3Url,
          path,
          payloadHash: sha256Hex(payload),
        });
  const response = await sendRaw(gw.s3Url, { method, target: path, headers, body });
  const requestId = response.headers['x-amz-request-id'];
  expect(requestId, response.body).toEqual(expect.any(String));
  await eventually(`the access log line of ${String(requestId)}`, () =>
    gw.logs.some((line) => line.includes(`"requestId":"${requestId}"`)),
  );
  return response;
}

describe('GET /v1/organisation/usage after real storage traffic', () => {
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const photo = 'p'.repeat(1500);
  const page = '<html>site</html>';
  let writer: Key;
  let reader: Key;

  // Writes, reads, a HEAD and an anonymous public read are usage; refused requests (a read-only key
  // writing, a suspended organisation reading) are not.
  beforeAll(async () => {
    for (const name of ['usage-photos', 'usage-site']) {
      expect((await owner.post('/v1/buckets', { name })).status).toBe(201);
    }
    writer = await credential(owner, { buckets: ['usage-photos', 'usage-site'], level: 'read-write' });
    reader = await credential(owner, { buckets: ['usage-photos'], level: 'read-only' });
    expect((await storage('PUT', '/usage-photos/cat.jpg', writer, photo)).status).toBe(200);
    expect((await storage('PUT', '/usage-site/index.html', writer, page)).status).toBe(200);
    expect((await storage('GET', '/usage-photos/cat.jpg', reader)).body).toBe(photo);
    expect((await storage('GET', '/usage-photos/cat.jpg', reader)).status).toBe(200);
    expect((await storage('HEAD', '/usage-photos/cat.jpg', reader)).status).toBe(200);
    expect((await owner.patch('/v1/buckets/usage-site', { public: true })).status).toBe(200);
    expect((await storage('GET', '/usage-site/index.html', null)).body).toBe(page);
    expect((await storage('PUT', '/usage-photos/nope.txt', reader, 'refused body')).status).toBe(403);
    const organisationId = (await owner.get('/v1/organisation')).body.id as string;
    expect(
      (await owner.post(`/v1/organisations/${organisationId}/suspend`, { reason: 'meter' })).status,
    ).toBe(200);
    expect((await storage('GET', '/usage-photos/cat.jpg', reader)).status).toBe(403);
    expect((await owner.post(`/v1/organisations/${organisationId}/reinstate`)).status).toBe(200);
  });

  it('counts requests, bytes in and bytes out per bucket', async () => {
    const report = await owner.get(`/v1/organisation/usage?from=${from}`);
    expect(report.status, report.text).toBe(200);
    expect(report.body.byBucket).toEqual([
      { bucket: 'usage-photos', requests: 4, bytesIn: 1500, bytesOut: 3000 },
      { bucket: 'usage-site', requests: 2, bytesIn: page.length, bytesOut: page.length },
    ]);
  });

  it('counts them per credential, anonymous reads under an empty access key id', async () => {
    const report = await owner.get(`/v1/organisation/usage?from=${from}`);
    expect(report.body.byCredential).toEqual(
      [
        { accessKeyId: '', requests: 1, bytesIn: 0, bytesOut: page.length },
        { accessKeyId: writer.accessKeyId, requests: 2, bytesIn: 1500 + page.length, bytesOut: 0 },
        { accessKeyId: reader.accessKeyId, requests: 3, bytesIn: 0, bytesOut: 3000 },
      ].sort((a, b) => (a.accessKeyId < b.accessKeyId ? -1 : 1)),
    );
  });

  it('totals them, refused requests left out', async () => {
    const report = await owner.get(`/v1/organisation/usage?from=${from}`);
    expect(report.body.totals).toEqual({
      requests: 6,
      bytesIn: 1500 + page.length,
      bytesOut: 3000 + page.length,
    });
  });

  it('adds more traffic to the same counters', async () => {
    const before = (await owner.get(`/v1/organisation/usage?from=${from}`)).body.totals;
    expect((await storage('GET', '/usage-site/index.html', writer)).status).toBe(200);
    const later = await owner.get(`/v1/organisation/usage?from=${from}`);
    expect(later.body.totals).toEqual({
      requests: before.requests + 1,
      bytesIn: before.bytesIn,
      bytesOut: before.bytesOut + page.length,
    });
  });

  it('shows none of it in a window that ended before it', async () => {
    const before = await owner.get(
      `/v1/organisation/usage?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z`,
    );
    expect(before.body.totals).toEqual({ requests: 0, bytesIn: 0, bytesOut: 0 });
  });

  it('shows an organisation its own traffic only', async () => {
    const other = await addOrganisation(owner, 'usage-other');
    expect((await other.owner.post('/v1/buckets', { name: 'usage-theirs' })).status).toBe(201);
    const theirs = await credential(other.owner, { buckets: ['usage-theirs'], level: 'read-write' });
    expect((await storage('PUT', '/usage-theirs/x.bin', theirs, 'x'.repeat(10))).status).toBe(200);

    const report = await other.owner.get('/v1/organisation/usage');
    expect(report.body.byBucket).toEqual([{ bucket: 'usage-theirs', requests: 1, bytesIn: 10, bytesOut: 0 }]);
    expect(report.body.byCredential).toEqual([
      { accessKeyId: theirs.accessKeyId, requests: 1, bytesIn: 10, bytesOut: 0 },
    ]);
    expect((await owner.get('/v1/organisation/usage')).text).not.toContain('usage-theirs');
  });
});
