/**
 * The storage endpoint: a raw node:http pipeline of small steps, in this order, each taking the
 * stage the one before produced (stages.ts):
 *
 *   arrive → bot protection → address (bucket, key, operation) → CORS (and preflights)
 *   → authenticate → authorise → request rate limits → bans → plan the body
 *   → the gateway's own answers (ListBuckets, location, ACLs, multipart completion)
 *     or forward to the object store (re-signed, body verified on its way),
 *     writes under the storage quotas (limits/storage-quotas.ts).
 *
 * Each step refuses by throwing an S3Error; this module turns it into the error document. Metrics,
 * usage and the access log are recorded when the response is over (observe.ts). Wire it to both
 * 'request' and 'checkContinue', so `Expect: 100-continue` is answered only when a body is
 * actually wanted, after authentication and authorisation.
 */
import type http from 'node:http';
import os from 'node:os';
import { TLSSocket } from 'node:tls';
import { BackendConnection } from '../backend/connection.js';
import type { ObjectStoreBackend } from '../backend/object-store.js';
import { advertisedControlUrl } from '../config/addresses.js';
import { storageWorkerCount, type GatewayConfig } from '../config/schema.js';
import { accessLogThrough, type AccessLog } from '../observability/access-log.js';
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { isS3Error, S3Error } from '../protocol/errors.js';
import type { Store } from '../store/index.js';
import { InstanceRegistry } from '../store/instances.js';
import { LastUsedRecorder } from '../store/last-used.js';
import { TombstoneSweep } from '../store/storage-objects.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';
import type { BucketEntry } from '../store/access-cache.js';
import type { CredentialRecord } from '../store/records.js';
import type { SigV4Verifier } from '../sigv4/verify.js';
import { renderBucketLocation } from './answers/bucket-location.js';
import { answerListBuckets } from './answers/list-buckets.js';
import { answerLiveness, isLivenessProbe } from './answers/liveness.js';
import {
  answerGetBucketAccelerateConfiguration,
  answerGetBucketEncryption,
  answerGetBucketOwnershipControls,
} from './answers/bucket-configuration.js';
import { answerGetBucketCors } from './answers/bucket-cors.js';
import { answerGetBucketAcl, answerGetObjectAcl, answerPutObjectAcl } from './answers/object-acl.js';
import { answerGetObjectAttributes } from './answers/object-attributes.js';
import { answerPreflight } from './answers/preflight.js';
import { Exchange } from './exchange.js';
import { observe, type Observers } from './observe.js';
import { sendError, sendHtml, sendXml } from './respond.js';
import { isAnswered, type AnsweredOperationName } from './operations.js';
import { RequestRateLimiter } from './limits/request-rates.js';
import { isInBucket, type Addressed, type Authorised, type InBucket, type Planned } from './stages.js';
import { address, arrive } from './steps/address.js';
import { authenticate, createVerifier } from './steps/authenticate.js';
import { authorise, type Guidance } from './steps/authorise.js';
import { enforceBans } from './steps/bans.js';
import { CHALLENGE_PAGE, CHALLENGE_STATUS, requiresChallenge } from './steps/bot-protection.js';
import { applyCors } from './steps/cors.js';
import { throttle } from './steps/throttle.js';
import { StorageQuotas } from './limits/storage-quotas.js';
import { UploadChecks } from './limits/upload-checks.js';
import { completeMultipartUpload } from './upstream/completion.js';
import { forwardDeleteObjects } from './upstream/delete-objects.js';
import { uploadForm } from './upstream/form-upload.js';
import { authenticateForm } from './steps/form-authenticate.js';
import { readFormHead } from './steps/form-fields.js';
import { forward } from './upstream/forward.js';
import { probeCopySource } from './upstream/probe.js';
import { Upstream } from './upstream/upstream.js';

/** What the storage endpoint is built from. */
export interface StorageServices {
  readonly config: GatewayConfig;
  readonly store: Pick<
    Store,
    | 'db'
    | 'cache'
    | 'buckets'
    | 'credentials'
    | 'usage'
    | 'storageReservations'
    | 'storageUploads'
    | 'storageLeases'
    | 'storageRecords'
  >;
  readonly backend: Pick<ObjectStoreBackend, 'endpoint' | 'region' | 'credentials'>;
  readonly metrics: GatewayMetrics;
  readonly logger: Logger;
  /** Where the one line per request goes (the logger unless given). */
  readonly accessLog?: AccessLog;
}

/** The storage endpoint's request listener; `close()` releases its backend connections once the server drained. */
export interface S3Listener {
  (request: http.IncomingMessage, response: http.ServerResponse): void;
  /** Resolves once this process is registered among those sharing limits (or its first try failed). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

interface Pipeline {
  readonly services: StorageServices;
  readonly verifier: SigV4Verifier<CredentialRecord>;
  readonly upstream: Upstream;
  readonly lastUsed: LastUsedRecorder;
  readonly observers: Observers;
  readonly guidance: Guidance;
  /** This process among those sharing the rate limits and holding quota reservations. */
  readonly instances: InstanceRegistry;
  readonly rates: RequestRateLimiter;
  readonly quotas: StorageQuotas;
}

/** A reservation of this process no write holds is freed once it is this old (a settle that failed). */
const STALE_AFTER_SECONDS = 10;

export function createS3Listener(services: StorageServices): S3Listener {
  const { config, store, metrics, logger } = services;
  const connection = new BackendConnection(services.backend, {
    timeoutMs: config.backend.timeoutSeconds * 1000,
  });
  const upstream = new Upstream(connection, metrics, logger);
  // Until the registry counts them, the processes sharing the limits are at least this instance's.
  const assumedLive = storageWorkerCount(config, os.availableParallelism());
  metrics.rateLimitProcesses.set(assumedLive);
  let quotas: StorageQuotas | null = null;
  const tombstones = new TombstoneSweep(store.db.counters);
  const uploadChecks = new UploadChecks(store.storageUploads, upstream, logger);
  const instances = new InstanceRegistry(store.db.sql, {
    assumedLive,
    onCount: (live) => metrics.rateLimitProcesses.set(live),
    onError: (error) =>
      logger.warn(
        { err: error },
        'could not beat in the instance registry; rate limit shares stay as they were',
      ),
    // Reservations no write of this process holds any more (a settle the database never took),
    // and uploads under way the store may have let go.
    afterBeat: async () => {
      quotas?.databaseReached();
      await tombstones.step();
      if (quotas !== null)
        await store.storageReservations.releaseStale(instances.id, quotas.inFlight(), STALE_AFTER_SECONDS);
      await uploadChecks.checkDue();
    },
  });
  quotas = new StorageQuotas(
    store.storageReservations,
    store.storageUploads,
    instances.id,
    upstream,
    logger,
    {
      leased: { leases: store.storageLeases, records: store.storageRecords },
      countRecords: (outcome, count) => metrics.quotaRecords.inc({ outcome }, count),
    },
  );
  const pipeline: Pipeline = {
    services,
    verifier: createVerifier(store.cache, {
      regions: config.s3.regions,
      maxSkewSeconds: config.s3.maxSkewSeconds,
    }),
    upstream,
    lastUsed: new LastUsedRecorder((ids, at) => store.credentials.touchLastUsed(ids, at), {
      onError: (error) => logger.warn({ err: error }, 'could not record credential last use'),
    }),
    observers: { metrics, accessLog: services.accessLog ?? accessLogThrough(logger), usage: store.usage },
    guidance: { controlPlaneUrl: advertisedControlUrl(config) },
    instances,
    rates: new RequestRateLimiter(() => instances.live),
    quotas,
  };
  const ready = instances.start();
  const domain = config.s3.domain;
  const bodyIdleTimeoutMs = config.s3.bodyIdleTimeoutMs;
  const listener = (request: http.IncomingMessage, response: http.ServerResponse): void => {
    // Probes are answered before anything else and kept out of the request metrics.
    if (isLivenessProbe(request, domain)) return answerLiveness(request, response);
    const exchange = new Exchange(request, response, bodyIdleTimeoutMs);
    observe(exchange, pipeline.observers);
    handle(exchange, pipeline).catch((error: unknown) => fail(exchange, pipeline, error));
  };
  return Object.assign(listener, {
    ready,
    close: async () => {
      // Before the registry stops: the records of uploads from leases, then the leases themselves.
      await quotas?.close().catch((error: unknown) => {
        logger.warn(
          { err: error },
          'could not give leased storage room back; released once this process is forgotten',
        );
      });
      await instances.close();
      await connection.close();
    },
  });
}

async function handle(exchange: Exchange, pipeline: Pipeline): Promise<void> {
  const { config, store } = pipeline.services;
  const arrived = arrive(exchange);
  if (
    requiresChallenge(config.s3.botProtection, {
      signed: arrived.signed,
      userAgent: exchange.headers['user-agent'],
    })
  ) {
    exchange.errorCode = 'BotChallenge';
    exchange.refusalReason = 'bot_protection';
    sendHtml(exchange, CHALLENGE_STATUS, CHALLENGE_PAGE);
    return;
  }
  const addressed = address(arrived, config.s3.domain);
  const cors = applyCors(addressed, store.cache);
  const known = cors instanceof Promise ? await cors : cors;
  if (addressed.classification.ok && addressed.classification.operation.name === 'CorsPreflight') {
    return answerPreflight(addressed, store.cache);
  }
  if (addressed.classification.ok && addressed.classification.operation.name === 'PostObject') {
    return uploadFormObject(addressed, pipeline, known);
  }
  const authenticated = await authenticate(addressed, pipeline.verifier);
  if (authenticated.identity.kind === 'credential')
    pipeline.lastUsed.used(authenticated.identity.credential.accessKeyId);
  const authorised = await authorise(authenticated, store.cache, known, pipeline.guidance);
  throttle(authorised, pipeline.rates);
  enforceBans(authorised);
  await perform(plan(authorised), pipeline);
}

/**
 * A browser form upload authenticates by its form (the signature and policy are fields before the
 * file), then goes on as the PutObject it amounts to: authorised and banned like one.
 */
async function uploadFormObject(
  addressed: Addressed,
  pipeline: Pipeline,
  known: BucketEntry | null | undefined,
): Promise<void> {
  const head = await readFormHead(addressed.exchange);
  const authenticated = await authenticateForm(addressed, head, pipeline.verifier);
  pipeline.lastUsed.used(authenticated.identity.credential.accessKeyId);
  const authorised = await authorise(authenticated, pipeline.services.store.cache, known, pipeline.guidance);
  throttle(authorised, pipeline.rates);
  enforceBans(authorised);
  // Where the client reaches the endpoint, for the Location of the form's answer.
  const { request } = addressed.exchange;
  const scheme = request.socket instanceof TLSSocket ? 'https' : 'http';
  const publicUrl = pipeline.services.config.s3.publicUrl ?? `${scheme}://${request.headers.host ?? ''}`;
  const planned = plan(authorised);
  if (!isInBucket(planned)) throw new S3Error('NoSuchBucket');
  await pipeline.quotas.formUpload(planned, head.fileLength, (beforeAnswer) =>
    uploadForm(planned, head, pipeline.upstream, publicUrl, beforeAnswer),
  );
}

/** The body plan's refusal, if any: after authorisation and bans, so it tells strangers nothing. */
function plan(stage: Authorised): Planned {
  if (!stage.bodyPlan.ok) throw new S3Error(stage.bodyPlan.error);
  return { ...stage, body: stage.bodyPlan };
}

/** The gateway's own answer to each operation the catalogue says it answers (the compiler checks all are here). */
const ANSWERS: Readonly<
  Record<
    Exclude<AnsweredOperationName, 'PostObject' | 'ListBuckets'>,
    (stage: InBucket<Planned>, pipeline: Pipeline) => void | Promise<void>
  >
> = {
  GetBucketLocation: (stage, pipeline) =>
    sendXml(stage.exchange, 200, renderBucketLocation(pipeline.services.config.s3.regions[0] ?? 'us-east-1')),
  GetBucketAcl: (stage) => answerGetBucketAcl(stage),
  GetBucketCors: (stage) => answerGetBucketCors(stage),
  GetBucketEncryption: () => answerGetBucketEncryption(),
  GetBucketOwnershipControls: () => answerGetBucketOwnershipControls(),
  GetBucketAccelerateConfiguration: (stage) => answerGetBucketAccelerateConfiguration(stage),
  GetObjectAcl: (stage, pipeline) => answerGetObjectAcl(stage, pipeline.upstream),
  GetObjectAttributes: (stage, pipeline) => answerGetObjectAttributes(stage, pipeline.upstream),
  PutObjectAcl: (stage, pipeline) => answerPutObjectAcl(stage, pipeline.upstream),
  CompleteMultipartUpload: (stage, pipeline) =>
    pipeline.quotas.completion(stage, (quota) => completeMultipartUpload(stage, pipeline.upstream, quota)),
};

async function perform(stage: Planned, pipeline: Pipeline): Promise<void> {
  const name = stage.operation.name;
  if (name === 'ListBuckets') return answerListBuckets(stage, pipeline.services.store.buckets);
  // Every other operation names a bucket, which authorisation has found.
  if (!isInBucket(stage)) throw new S3Error('NoSuchBucket');
  const { upstream, quotas } = pipeline;
  if (isAnswered(name) && name !== 'PostObject') return ANSWERS[name](stage, pipeline);
  if (name === 'DeleteObjects')
    return quotas.deletions(stage, (counted) => forwardDeleteObjects(stage, counted));
  if (name === 'CopyObject' || name === 'UploadPartCopy') {
    const source = await probeCopySource(stage, upstream);
    return quotas.copy(stage, source, (beforeAnswer) => forward(stage, upstream, beforeAnswer));
  }
  return quotas.forwarded(stage, (beforeAnswer) => forward(stage, upstream, beforeAnswer));
}

function fail(exchange: Exchange, pipeline: Pipeline, error: unknown): void {
  if (isS3Error(error)) {
    sendError(exchange, error);
    return;
  }
  if (isDatabaseUnavailable(error)) {
    pipeline.services.logger.warn(
      { requestId: exchange.id, code: (error as NodeJS.ErrnoException).code },
      'database did not answer',
    );
    sendError(exchange, new S3Error('DatabaseUnavailable'));
    return;
  }
  pipeline.services.logger.error({ err: error, requestId: exchange.id }, 'storage request failed');
  sendError(exchange, new S3Error('InternalError'));
}
