/**
 * Who sent the request. Header-signed and presigned requests are verified with SigV4 against the
 * credential's secret (and, during a rotation's grace period, its previous secret); a request
 * with neither form of signature is anonymous and may only read public buckets (authorise.ts).
 */
import { credentialExpired } from '../../access/credential-expiry.js';
import type http from 'node:http';
import { S3Error } from '../../protocol/errors.js';
import type { HeaderMap } from '../../protocol/headers.js';
import type { AccessCache } from '../../store/access-cache.js';
import type { CredentialRecord } from '../../store/records.js';
import { isChecksumValueHeader } from '../../sigv4/checksums.js';
import { SigV4Verifier, type FoundCredential } from '../../sigv4/verify.js';
import type { Addressed, Authenticated } from '../stages.js';

/** Secrets that verify a signature right now: the current one, and the previous one until its grace ends. */
export function usableSecrets(credential: CredentialRecord, now: number): string[] {
  const until = credential.previousSecretValidUntil;
  if (credential.previousSecret !== null && until !== null && until.getTime() > now) {
    return [credential.secret, credential.previousSecret];
  }
  return [credential.secret];
}

function found(credential: CredentialRecord | null): FoundCredential<CredentialRecord> | null {
  return credential === null ? null : { credential, secrets: usableSecrets(credential, Date.now()) };
}

export function createVerifier(
  cache: AccessCache,
  settings: { readonly regions: readonly string[]; readonly maxSkewSeconds: number },
): SigV4Verifier<CredentialRecord> {
  return new SigV4Verifier<CredentialRecord>(
    (accessKeyId) => {
      const credential = cache.credential(accessKeyId);
      return credential instanceof Promise ? credential.then(found) : found(credential);
    },
    { allowedRegions: settings.regions, maxSkewSeconds: settings.maxSkewSeconds },
  );
}

/** Methods whose S3 operations read a request body; any other request's body is never forwarded. */
const BODY_METHODS: ReadonlySet<string> = new Set(['PUT', 'POST']);

/**
 * The headers that describe the body, or null for a request whose body is never read.
 * CompleteMultipartUpload's x-amz-checksum-* headers are the whole object's checksum, not the XML
 * body's, so they must not be checked against the body.
 */
function bodyHeaders(stage: Addressed): HeaderMap | null {
  if (!BODY_METHODS.has(stage.exchange.method)) return null;
  if (stage.classification.ok && stage.classification.operation.name === 'CompleteMultipartUpload') {
    const headers: Record<string, string | readonly string[] | undefined> = {};
    for (const name in stage.headers) if (!isChecksumValueHeader(name)) headers[name] = stage.headers[name];
    return headers;
  }
  return stage.headers;
}

/**
 * The headers as received, repeated ones as arrays: SigV4 joins repeated values with a bare
 * comma, where Node's `headers` joins them with ', ' (or drops some). Most requests repeat none,
 * and then the plain map serves without building another.
 */
function receivedHeaders(request: http.IncomingMessage): HeaderMap {
  let names = 0;
  for (const _ in request.headers) names += 1;
  return names * 2 === request.rawHeaders.length ? request.headers : request.headersDistinct;
}

export async function authenticate(
  stage: Addressed,
  verifier: SigV4Verifier<CredentialRecord>,
): Promise<Authenticated> {
  const { exchange } = stage;
  const now = new Date();
  const result = await verifier.authenticate({
    method: exchange.method,
    path: stage.rawPath,
    query: stage.query,
    headers: stage.signed ? receivedHeaders(exchange.request) : exchange.headers,
    bodyHeaders: bodyHeaders(stage),
    now,
  });
  if (!result.ok) {
    exchange.accessKeyId = result.accessKeyId ?? null;
    throw new S3Error(result.error, result.details, result.message);
  }
  if (result.kind === 'anonymous')
    return { ...stage, identity: { kind: 'anonymous' }, bodyPlan: result.bodyPlan };

  exchange.accessKeyId = result.accessKeyId;
  const credential = result.credential;
  // Checked after the signature, so only the key's holder learns that it expired.
  if (credentialExpired(credential, now)) throw new S3Error('ExpiredAccessKey');
  return {
    ...stage,
    identity: { kind: 'credential', credential, form: result.form, payloadMode: result.payloadMode },
    bodyPlan: result.bodyPlan,
  };
}
