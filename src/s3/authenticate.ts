/**
 * Who sent the request. Header-signed and presigned requests are verified with SigV4 against the
 * credential's secret (and, during a rotation's grace period, its previous secret); a request
 * with neither form of signature is anonymous and may only read public buckets (authorise.ts).
 */
import type { AccessCache } from '../store/access-cache.js';
import type { CredentialRecord } from '../store/records.js';
import { S3Error } from './errors.js';
import type { Identity, S3Exchange } from './exchange.js';
import { detectAuthForm, SigningKeyCache, SigV4Verifier, type CredentialSecrets } from './sigv4/index.js';

export interface AuthenticationSettings {
  readonly regions: readonly string[];
  readonly maxSkewSeconds: number;
}

/** Secrets that verify a signature right now: the current one, and the previous one until its grace ends. */
export function usableSecrets(credential: CredentialRecord, now: Date): string[] {
  const secrets = [credential.secret];
  const until = credential.previousSecretValidUntil;
  if (credential.previousSecret !== null && until !== null && until.getTime() > now.getTime()) {
    secrets.push(credential.previousSecret);
  }
  return secrets;
}

export function createVerifier(cache: AccessCache, settings: AuthenticationSettings): SigV4Verifier {
  return new SigV4Verifier(
    async (accessKeyId): Promise<CredentialSecrets | null> => {
      const credential = await cache.credential(accessKeyId);
      return credential === null ? null : { secrets: usableSecrets(credential, new Date()) };
    },
    {
      allowedRegions: settings.regions,
      maxSkewMs: settings.maxSkewSeconds * 1000,
      signingKeys: new SigningKeyCache(),
    },
  );
}

export function isSigned(exchange: Pick<S3Exchange, 'headers' | 'rawTarget'>): boolean {
  return detectAuthForm(exchange.headers, exchange.rawTarget) !== 'anonymous';
}

export async function authenticate(
  exchange: S3Exchange,
  cache: AccessCache,
  verifier: SigV4Verifier,
): Promise<Identity> {
  if (!isSigned(exchange)) return { kind: 'anonymous' };

  const now = new Date();
  const result = await verifier.verify({
    method: exchange.method,
    rawTarget: exchange.rawTarget,
    headers: exchange.request.headersDistinct,
    now,
  });
  if (!result.ok) {
    exchange.accessKeyId = result.accessKeyId ?? null;
    throw new S3Error(result.error, { ...result.details });
  }
  exchange.accessKeyId = result.accessKeyId;

  // Verified moments ago through the same cache; only a revocation in between makes this null.
  const credential = await cache.credential(result.accessKeyId);
  if (credential === null) throw new S3Error('InvalidAccessKeyId');
  // Checked after the signature, so only the key's holder learns that it expired.
  if (credential.expiresAt !== null && credential.expiresAt.getTime() <= now.getTime()) {
    throw new S3Error('ExpiredAccessKey');
  }
  return { kind: 'credential', credential, form: result.form, payloadHash: result.payloadHash };
}
