/**
 * One gateway in front of the e2e run's Ceph RGW, with the tenants a client suite needs, all made
 * through the control plane: a platform admin creates organisations, their first owners accept
 * the invitations (creating the users), and the owners create buckets and scoped credentials.
 */
import { randomBytes } from 'node:crypto';
import { HeadObjectCommand, GetObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { E2eBackend } from '../global-setup.js';
import {
  startTestGateway,
  TEST_ADMIN_EMAIL,
  TEST_ADMIN_PASSWORD,
  type TestGateway,
} from '../../support/gateway.js';
import { acceptInvitation, login, type ControlClient, type StorageKey } from '../../support/control-plane.js';
import { startForwardProxy, type ForwardProxy } from './forward-proxy.js';
import { backendEnv } from './rgw.js';

export const REGION = 'us-east-1';

/**
 * Bounds on every request of an in-process AWS SDK client, so a gateway or RGW that stops answering
 * fails the step instead of hanging it until the test's timeout: connecting, the whole request
 * (thrown as a TimeoutError), and any silence on the socket (also while a response body is read).
 */
export const SDK_TIMEOUTS = {
  connectionTimeout: 10_000,
  requestTimeout: 60_000,
  throwOnRequestTimeout: true,
  socketTimeout: 60_000,
} as const;

export interface Tenant {
  organisationId: string;
  owner: ControlClient;
  /** The bucket the tenant's credentials are scoped to. */
  bucket: string;
}

export interface AccessLogEntry {
  method: string;
  target: string;
  operation: string;
  status: number;
  code: string | null;
  bucket: string | null;
  accessKeyId: string | null;
  userAgent: string | null;
}

export interface World {
  gateway: TestGateway;
  admin: ControlClient;
  /** http://127.0.0.1:<port>, the path-style storage URL. */
  s3Url: string;
  s3Port: number;
  /** The storage domain: virtual-hosted buckets are `<bucket>.<domain>:<port>`. */
  domain: string;
  /** http://<domain>:<port>, the endpoint clients use for virtual-hosted addressing. */
  virtualEndpoint: string;
  /** Reaches `*.<domain>` on loopback for clients that cannot be given a resolver of their own. */
  proxy: ForwardProxy;
  /** Reads straight from RGW with the backend's own key: what was really stored. */
  observer: S3Client;
  /** The main tenant: `bucket` plus `otherBucket` (same organisation, outside the keys' scope). */
  tenant: Tenant & { otherBucket: string; readWrite: StorageKey; readOnly: StorageKey };
  /** A second organisation with one bucket and a read-write key; the suite suspends it. */
  suspendable: Tenant & { key: StorageKey };
  /** The gateway's storage access log so far. */
  accessLog(): AccessLogEntry[];
  stop(): Promise<void>;
}

const OWNER_PASSWORD = 'e2e owner password, long enough';

export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
}

/** An organisation made by the platform admin, whose new owner logs in by accepting the invitation. */
async function createTenant(
  admin: ControlClient,
  label: string,
): Promise<{ id: string; owner: ControlClient }> {
  const email = `owner@${label}.e2e.test`;
  const organisation = await admin.createOrganisation(`e2e ${label}`, email);
  const { client: owner } = await acceptInvitation(admin.baseUrl, organisation.invitationToken, {
    email,
    password: OWNER_PASSWORD,
    name: `Owner of ${label}`,
  });
  if ((await owner.organisationId()) !== organisation.id)
    throw new Error('owner joined another organisation');
  return { id: organisation.id, owner };
}

export async function startWorld(label: string, rgw: E2eBackend): Promise<World> {
  const gateway = await startTestGateway({
    ...backendEnv(rgw),
    GATEWAY_LOG_LEVEL: 'info',
  });
  try {
    // test/e2e/global-setup.ts found or started PostgreSQL: the gateway must be on it, not on PGlite
    if (process.env.GATEWAY_TEST_POSTGRES_URL && gateway.database?.kind !== 'postgres') {
      throw new Error('PostgreSQL answers, but the gateway did not get a database on it');
    }
    const s3Port = Number(new URL(gateway.s3Url).port);
    const domain = gateway.config.s3.domain;
    const admin = await login(gateway.controlUrl, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);

    const main = await createTenant(admin, label);
    const bucket = uniqueName(`e2e-${label}`);
    const otherBucket = uniqueName(`e2e-${label}-other`);
    await main.owner.createBucket(bucket);
    await main.owner.createBucket(otherBucket);
    const readWrite = await main.owner.createCredential(`${label} read-write`, {
      buckets: [bucket],
      level: 'read-write',
    });
    const readOnly = await main.owner.createCredential(`${label} read-only`, {
      buckets: [bucket],
      level: 'read-only',
    });

    const second = await createTenant(admin, `${label}-suspendable`);
    const suspendableBucket = uniqueName(`e2e-${label}-susp`);
    await second.owner.createBucket(suspendableBucket);
    const suspendableKey = await second.owner.createCredential(`${label} suspendable`, {
      buckets: ['*'],
      level: 'read-write',
    });

    const proxy = await startForwardProxy(s3Port, domain);
    const observer = new S3Client({
      endpoint: rgw.url,
      region: rgw.region,
      forcePathStyle: true,
      credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: SDK_TIMEOUTS,
    });

    return {
      gateway,
      admin,
      s3Url: gateway.s3Url,
      s3Port,
      domain,
      virtualEndpoint: `http://${domain}:${s3Port}`,
      proxy,
      observer,
      tenant: { organisationId: main.id, owner: main.owner, bucket, otherBucket, readWrite, readOnly },
      suspendable: {
        organisationId: second.id,
        owner: second.owner,
        bucket: suspendableBucket,
        key: suspendableKey,
      },
      accessLog: () =>
        gateway.logs
          .map((line) => JSON.parse(line) as { msg?: string } & AccessLogEntry)
          .filter((entry) => entry.msg === 's3 request'),
      stop: async () => {
        observer.destroy();
        await proxy.close();
        for (const [owner, name] of [
          [main.owner, bucket],
          [main.owner, otherBucket],
          [second.owner, suspendableBucket],
        ] as const) {
          await owner.deleteBucketWithObjects(name).catch(() => undefined);
        }
        await gateway.stop();
      },
    };
  } catch (error) {
    await gateway.stop().catch(() => undefined);
    throw error;
  }
}

/** What RGW holds under a key (read directly, not through the gateway), or null when nothing. */
export async function storedObject(
  world: World,
  bucket: string,
  key: string,
): Promise<{ etag: string; size: number; body: Buffer } | null> {
  try {
    const object = await world.observer.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const body = Buffer.from(await object.Body!.transformToByteArray());
    return { etag: object.ETag ?? '', size: object.ContentLength ?? -1, body };
  } catch (error) {
    if (error instanceof S3ServiceException && error.name === 'NoSuchKey') return null;
    throw error;
  }
}

/** The ETag RGW reports for a key (HEAD straight to RGW), or null when there is no such object. */
export async function storedEtag(world: World, bucket: string, key: string): Promise<string | null> {
  try {
    return (await world.observer.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ETag ?? '';
  } catch (error) {
    if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return null;
    throw error;
  }
}
