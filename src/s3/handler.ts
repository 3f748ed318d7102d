/**
 * The storage endpoint: a raw node:http pipeline of small steps, in this order:
 *
 *   bot protection → address → operation → CORS → authentication → authorisation → bans
 *   → the gateway's own answers (ListBuckets, location, ACLs, preflights)
 *   → copy-source and multipart checks → proxy to the object store (re-signed, body verified).
 *
 * Each step refuses by throwing an S3Error; this module turns it into the error document.
 * Metrics, usage and the access log are recorded when the response is over (observe.ts).
 * Wire it to both 'request' and 'checkContinue', so `Expect: 100-continue` is answered only when
 * a body is actually wanted, after authentication and authorisation.
 */
import type { GatewayContext } from '../context.js';
import type { RequestListener } from '../server/listen.js';
import { resolveAddress } from './address.js';
import { authenticate, isSigned } from './authenticate.js';
import { assertRequesterActive, authorise } from './authorise.js';
import { enforceBans } from './bans.js';
import { CHALLENGE_PAGE, CHALLENGE_STATUS, requiresChallenge } from './bot-protection.js';
import { renderBucketLocation } from './bucket-location.js';
import { assertPartCopySupported, checkCopySource, parseCopySource } from './copy-source.js';
import { answerPreflight, applyCors } from './cors.js';
import { createDependencies, type S3Dependencies } from './dependencies.js';
import { isS3Error, S3Error } from './errors.js';
import { createExchange, type Identity, type S3Exchange } from './exchange.js';
import { forwardToBackend } from './forward.js';
import { answerListBuckets } from './list-buckets.js';
import { answerLiveness, isLivenessProbe } from './liveness.js';
import { completeMultipartUpload } from './multipart.js';
import { answerGetObjectAcl, answerPutObjectAcl } from './object-acl.js';
import { observeExchange } from './observe.js';
import { classifyOperation, type S3Operation } from './operation.js';
import { effectiveHeaders, headerValue, type HeaderMap } from './request-headers.js';
import { sendError, sendHtml, sendXml } from './respond.js';

/** The storage endpoint's request listener; `close()` releases its backend connections once the server drained. */
export interface S3Listener extends RequestListener {
  close(): void;
}

export function createS3Listener(context: GatewayContext): S3Listener {
  const dependencies = createDependencies(context);
  const storageDomain = context.config.s3.domain;
  const listener: RequestListener = (request, response) => {
    // Probes are answered before anything else and kept out of the request metrics.
    if (isLivenessProbe(request, storageDomain)) return answerLiveness(request, response);
    const exchange = createExchange(request, response);
    observeExchange(exchange, context);
    handle(exchange, dependencies).catch((error: unknown) => fail(exchange, dependencies, error));
  };
  return Object.assign(listener, { close: () => dependencies.agent.destroy() });
}

async function handle(exchange: S3Exchange, dependencies: S3Dependencies): Promise<void> {
  const { config, store } = dependencies.context;
  const signed = isSigned(exchange);
  if (requiresChallenge(config.s3.botProtection, { signed, userAgent: exchange.headers['user-agent'] })) {
    exchange.errorCode = 'BotChallenge';
    exchange.refusalReason = 'bot_protection';
    sendHtml(exchange, CHALLENGE_STATUS, CHALLENGE_PAGE);
    return;
  }

  const address = resolveAddress(exchange.headers.host, exchange.rawTarget, config.s3.domain);
  exchange.address = address;
  const headers = effectiveHeaders(exchange.headers, address.query);
  const classification = classifyOperation(exchange.method, address, headers);
  exchange.operation = classification.ok ? classification.operation.name : classification.label;
  await applyCors(exchange, store.cache);
  if (classification.ok && classification.operation.name === 'CorsPreflight') {
    await answerPreflight(exchange, store.cache);
    return;
  }

  const identity = await authenticate(exchange, store.cache, dependencies.verifier);
  exchange.identity = identity;
  if (identity.kind === 'credential') dependencies.lastUsed.used(identity.credential.accessKeyId);
  // Refused operations are told after authentication, as S3 does, so they reveal nothing to
  // strangers, and after suspension, which answers every request of a suspended organisation.
  if (!classification.ok) {
    await assertRequesterActive(exchange, store.cache, identity);
    throw new S3Error(classification.error);
  }
  const operation = classification.operation;
  await authorise(exchange, store.cache, identity, operation);
  enforceBans(exchange.method, address, headers);
  await perform(exchange, dependencies, operation, identity, headers);
}

async function perform(
  exchange: S3Exchange,
  dependencies: S3Dependencies,
  operation: S3Operation,
  identity: Identity,
  headers: HeaderMap,
): Promise<void> {
  const payloadHash = identity.kind === 'credential' ? identity.payloadHash : undefined;
  switch (operation.name) {
    case 'ListBuckets':
      if (identity.kind !== 'credential') throw new S3Error('AnonymousAccessDenied');
      return answerListBuckets(exchange, dependencies, identity.credential);
    case 'GetBucketLocation':
      return sendXml(
        exchange,
        200,
        renderBucketLocation(dependencies.context.config.s3.regions[0] ?? 'us-east-1'),
      );
    case 'GetObjectAcl':
      return answerGetObjectAcl(exchange, dependencies);
    case 'PutObjectAcl':
      return answerPutObjectAcl(exchange, dependencies, headers, payloadHash);
    case 'CompleteMultipartUpload':
      return completeMultipartUpload(exchange, dependencies, headers, payloadHash);
    case 'CopyObject':
    case 'UploadPartCopy': {
      if (identity.kind !== 'credential') throw new S3Error('AnonymousAccessDenied');
      const copySource = parseCopySource(headerValue(headers, 'x-amz-copy-source') ?? '');
      if (operation.name === 'UploadPartCopy') assertPartCopySupported(copySource);
      await checkCopySource(exchange, dependencies, copySource, identity.credential, headers);
      return forwardToBackend(exchange, dependencies, { headers, payloadHash, copySource });
    }
    default:
      return forwardToBackend(exchange, dependencies, { headers, payloadHash });
  }
}

function fail(exchange: S3Exchange, dependencies: S3Dependencies, error: unknown): void {
  const { logger } = dependencies.context;
  if (isS3Error(error)) {
    sendError(exchange, error);
    return;
  }
  logger.error({ err: error, requestId: exchange.id }, 'storage request failed');
  sendError(exchange, new S3Error('InternalError'));
}
