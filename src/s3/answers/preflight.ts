/**
 * A browser's CORS preflight (OPTIONS), answered from the bucket's rules; no signature involved.
 * Without a rule for its origin, method and headers it gets a 403 error document and the browser
 * fails, which is the symptom the spec describes (service-spec §7).
 */
import { S3Error } from '../../protocol/errors.js';
import type { AccessCache } from '../../store/access-cache.js';
import { sendEmpty } from '../respond.js';
import type { Addressed } from '../stages.js';
import { activeOrganisation, addressedBucket } from '../steps/authorise.js';
import { findCorsRule, preflightResponseHeaders, requestedHeaders } from '../steps/cors.js';

export async function answerPreflight(stage: Addressed, cache: AccessCache): Promise<void> {
  const { exchange } = stage;
  const origin = exchange.headers.origin;
  if (origin === undefined) throw new S3Error('MissingCorsHeaders');
  const method = exchange.headers['access-control-request-method'];
  if (method === undefined || method.trim() === '') throw new S3Error('InvalidCorsRequestMethod');
  if (stage.bucket === null) throw new S3Error('CorsPreflightRefused');
  const entry = await addressedBucket(stage, cache);
  if (entry === null) throw new S3Error('NoSuchBucket');
  // Every storage request of a suspended organisation is AccountProblem, a browser's preflight too.
  await activeOrganisation(exchange, cache, entry.bucket.organisationId);
  const headers = requestedHeaders(exchange.headers['access-control-request-headers']);
  const rule = findCorsRule(entry.cors?.rules ?? [], origin, method.trim(), headers);
  if (rule === undefined) throw new S3Error('CorsPreflightRefused');
  sendEmpty(exchange, 200, preflightResponseHeaders(rule, origin, headers));
}
