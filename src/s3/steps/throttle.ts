/**
 * The request rate limits of the organisation and of the credential, after authorisation (only a
 * verified identity may spend its own budget: an unsigned request naming someone's key must not
 * use up theirs). A request over a limit is 503 SlowDown with Retry-After, as S3 answers; it is
 * counted as throttled, not as usage. The check is in memory (limits/request-rates.ts).
 */
import type { LimitKind } from '../../observability/metrics.js';
import { S3Error } from '../../protocol/errors.js';
import type { RequestRate } from '../../store/records.js';
import type { RequestRateLimiter } from '../limits/request-rates.js';
import type { Authorised } from '../stages.js';

const REFUSAL = {
  credential_rate: 'CredentialRateLimited',
  organisation_rate: 'OrganisationRateLimited',
} as const;

type RateLimitKind = keyof typeof REFUSAL;

export function throttle(stage: Authorised, limiter: RequestRateLimiter): void {
  const { organisation, identity, exchange } = stage;
  const { requests, credentialRequests } = organisation.limits;
  if (requests === null && (credentialRequests === null || identity.kind !== 'credential')) return;
  const limits: { key: string; rate: RequestRate; limit: RateLimitKind }[] = [];
  if (credentialRequests !== null && identity.kind === 'credential')
    limits.push({ key: identity.credential.accessKeyId, rate: credentialRequests, limit: 'credential_rate' });
  if (requests !== null) limits.push({ key: organisation.id, rate: requests, limit: 'organisation_rate' });
  const verdict = limiter.admit(limits);
  if (verdict === null) return;
  exchange.limitedBy = verdict.limit satisfies LimitKind;
  const refusal = new S3Error(REFUSAL[verdict.limit]);
  refusal.retryAfterSeconds = Math.max(1, Math.ceil(verdict.retryAfterSeconds));
  throw refusal;
}
