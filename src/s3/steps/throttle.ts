/**
 * The request rate limits of the organisation and of the credential, after authorisation (only a
 * verified identity may spend its own budget: an unsigned request naming someone's key must not
 * use up theirs). A request over a limit is 503 SlowDown with Retry-After, as S3 answers; it is
 * counted as throttled, not as usage. The check is in memory (limits/request-rates.ts).
 */
import type { LimitKind } from '../../observability/metrics.js';
import { S3Error } from '../../protocol/errors.js';
import type { RateLimitKind, RequestRateLimiter } from '../limits/request-rates.js';
import type { Authorised } from '../stages.js';

const REFUSAL = {
  credential_rate: 'CredentialRateLimited',
  organisation_rate: 'OrganisationRateLimited',
} as const satisfies Record<RateLimitKind, string>;

export function throttle(stage: Authorised, limiter: RequestRateLimiter): void {
  const { organisation, identity, exchange } = stage;
  const accessKeyId = identity.kind === 'credential' ? identity.credential.accessKeyId : null;
  const verdict = limiter.admit(organisation.limits, organisation.id, accessKeyId);
  if (verdict === null) return;
  exchange.limitedBy = verdict.limit satisfies LimitKind;
  const refusal = new S3Error(REFUSAL[verdict.limit]);
  refusal.retryAfterSeconds = Math.max(1, Math.ceil(verdict.retryAfterSeconds));
  throw refusal;
}
