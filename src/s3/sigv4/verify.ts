/**
 * SigV4 verification of one S3 request, header or presigned form.
 *
 * The checks run in a fixed order, because the order decides which error a client sees
 * and what an unauthenticated caller can learn:
 *
 * header form:    malformed Authorization → host not signed → region → service →
 *                 unknown key → date missing/invalid → scope date ≠ request date →
 *                 clock skew → x-amz-content-sha256 missing/invalid → signature →
 *                 signed streaming refused (501, only once we know the signer is genuine)
 * presigned form: malformed query → lifetime over 7 days (before the signature, so an
 *                 over-long URL is refused even when well signed) → host not signed →
 *                 region → service → unknown key → X-Amz-Date invalid → scope date ≠
 *                 X-Amz-Date → X-Amz-Date too far in the future → X-Amz-Content-Sha256
 *                 invalid → signature → expired.
 *
 * Expiry is checked after the signature so that only the holder of a genuine URL learns
 * that it expired; a forged or altered URL always gets SignatureDoesNotMatch.
 *
 * Credential expiry, revocation-by-state, account suspension, bucket scope and dot-segment
 * keys are the caller's business; this module answers only "did this key sign this request".
 */

import type { S3ErrorKey } from '../errors.js';
import type { HeaderAuthorization, ParsedCredential, PresignedAuthorization } from './authorization.js';
import { detectAuthForm, parseAuthorizationHeader, parsePresignedQuery } from './authorization.js';
import type { SigningTimestamp } from './amz-date.js';
import { parseAmzDate, parseHttpDate, scopeDateOf } from './amz-date.js';
import type { CredentialScope, RequestHeaders } from './canonical.js';
import {
  buildCanonicalRequest,
  canonicalQueryString,
  canonicalUri,
  headerText,
  splitRequestTarget,
  stringToSign,
} from './canonical.js';
import {
  MAX_CLOCK_SKEW_MS,
  MAX_PRESIGN_SECONDS,
  PRESIGN_PARAMS,
  S3_SERVICE,
  STREAMING_SIGNED_PAYLOAD,
  STREAMING_SIGNED_PAYLOAD_TRAILER,
  STREAMING_UNSIGNED_PAYLOAD_TRAILER,
  UNSIGNED_PAYLOAD,
  HEX_SHA256,
} from './constants.js';
import { deriveSigningKey, SigningKeyCache, signaturesEqual, signStringToSign } from './signing-key.js';

export interface VerifyRequest {
  /** HTTP method as received (Node gives it upper-case). */
  readonly method: string;
  /** Path and query exactly as received (`req.url`), still percent-encoded. */
  readonly rawTarget: string;
  /** Prefer `req.headersDistinct`: repeated headers then sign exactly as SigV4 joins them. */
  readonly headers: RequestHeaders;
  readonly now: Date;
}

/** Every secret currently valid for a key: two during a rotation grace period. */
export interface CredentialSecrets {
  readonly secrets: readonly string[];
}

/** Resolves an access key id; null when no such key exists (unknown or revoked). */
export type SecretLookup = (accessKeyId: string) => Promise<CredentialSecrets | null>;

export interface VerifyOptions {
  /** Regions a credential scope may name, e.g. ['us-east-1', 'auto']. */
  readonly allowedRegions: readonly string[];
  /** Largest accepted clock difference; 15 minutes unless set. */
  readonly maxSkewMs?: number;
  /** Largest accepted X-Amz-Expires; 604800 (7 days) unless set. */
  readonly maxPresignSeconds?: number;
  /** Cache of derived signing keys; keys are derived per request when omitted. */
  readonly signingKeys?: SigningKeyCache;
}

export type AuthenticationForm = 'header' | 'presigned';

export interface VerifySuccess {
  readonly ok: true;
  readonly accessKeyId: string;
  readonly form: AuthenticationForm;
  /**
   * What the body must be checked against: the x-amz-content-sha256 value (64-hex,
   * UNSIGNED-PAYLOAD or STREAMING-UNSIGNED-PAYLOAD-TRAILER); for presigned URLs
   * UNSIGNED-PAYLOAD unless the URL carries X-Amz-Content-Sha256.
   */
  readonly payloadHash: string;
  readonly signedHeaders: readonly string[];
  readonly scope: CredentialScope;
  /** The signing time the client claimed. */
  readonly requestTime: Date;
  /** Presigned only: the instant the URL stops working. */
  readonly expiresAt?: Date;
}

export interface VerifyFailure {
  readonly ok: false;
  readonly error: S3ErrorKey;
  /** Extra S3 error elements (RequestTimeTooSkewed carries RequestTime, ServerTime, ...). */
  readonly details?: Readonly<Record<string, string>>;
  /** The access key the request named, once known; for logs, never for the response. */
  readonly accessKeyId?: string;
}

export type VerifyResult = VerifySuccess | VerifyFailure;

function failure(error: S3ErrorKey, extra: Omit<VerifyFailure, 'ok' | 'error'> = {}): VerifyFailure {
  return { ok: false, error, ...extra };
}

const ACCEPTED_PAYLOAD_MODES: readonly string[] = [
  UNSIGNED_PAYLOAD,
  STREAMING_UNSIGNED_PAYLOAD_TRAILER,
  STREAMING_SIGNED_PAYLOAD,
  STREAMING_SIGNED_PAYLOAD_TRAILER,
];
const SIGNED_STREAMING_MODES: readonly string[] = [
  STREAMING_SIGNED_PAYLOAD,
  STREAMING_SIGNED_PAYLOAD_TRAILER,
];

/** `2013-05-24T00:00:00Z`: how S3 prints ServerTime. */
function serverTimeText(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function skewDetails(requestTime: string, now: Date, maxSkewMs: number): Record<string, string> {
  return {
    RequestTime: requestTime,
    ServerTime: serverTimeText(now),
    MaxAllowedSkewMilliseconds: String(maxSkewMs),
  };
}

/**
 * Canonical URIs a genuine client may have signed. The normalised form (decode, re-encode)
 * is what S3 computes and what the AWS SDKs produce. The path exactly as received is tried
 * too when it differs, because some signers sign the escapes they send (`%7E`, lower-case
 * hex); both spellings name the same decoded key, so accepting either widens nothing.
 */
function candidateUris(rawPath: string): string[] {
  const normalised = canonicalUri(rawPath);
  return rawPath === '' || rawPath === normalised ? [normalised] : [normalised, rawPath];
}

interface SignatureCheck {
  readonly request: VerifyRequest;
  readonly auth: ParsedCredential & { readonly signedHeaders: readonly string[]; readonly signature: string };
  readonly secrets: readonly string[];
  readonly timestamp: SigningTimestamp;
  readonly payloadHash: string;
  /** Presigned URLs carry their own signature in the query; it cannot sign itself. */
  readonly excludeQueryParameter?: string;
}

function signatureMatches(check: SignatureCheck, signingKeys: SigningKeyCache | undefined): boolean {
  const { path, query } = splitRequestTarget(check.request.rawTarget);
  const canonicalQuery = canonicalQueryString(query, check.excludeQueryParameter);
  const stringsToSign = candidateUris(path).map((uri) =>
    stringToSign(
      check.timestamp.amzDate,
      check.auth.scope,
      buildCanonicalRequest({
        method: check.request.method,
        canonicalUri: uri,
        canonicalQuery,
        headers: check.request.headers,
        signedHeaders: check.auth.signedHeaders,
        payloadHash: check.payloadHash,
      }),
    ),
  );
  let matched = false;
  // Every combination is computed even after a match, so timing does not reveal which
  // secret (old or new during rotation) signed the request.
  for (const secret of check.secrets) {
    const key =
      signingKeys?.signingKey(secret, check.auth.scope) ?? deriveSigningKey(secret, check.auth.scope);
    for (const candidate of stringsToSign) {
      if (signaturesEqual(signStringToSign(key, candidate), check.auth.signature)) matched = true;
    }
  }
  return matched;
}

function signsHost(signedHeaders: readonly string[]): boolean {
  return signedHeaders.some((name) => name.toLowerCase() === 'host');
}

/** Region and service of the credential scope, with the error variant for the auth form. */
function checkScope(
  scope: CredentialScope,
  form: AuthenticationForm,
  options: VerifyOptions,
): S3ErrorKey | undefined {
  if (!options.allowedRegions.includes(scope.region)) {
    return form === 'header' ? 'AuthorizationHeaderMalformedRegion' : 'AuthorizationQueryParametersRegion';
  }
  if (scope.service !== S3_SERVICE) {
    return form === 'header' ? 'AuthorizationHeaderMalformedService' : 'AuthorizationQueryParametersService';
  }
  return undefined;
}

/** x-amz-date wins; a bare Date header is the SigV4 fallback. An unparseable x-amz-date does not fall back. */
function requestTimestamp(headers: RequestHeaders): { timestamp?: SigningTimestamp; sent?: string } {
  const amzDate = headerText(headers, 'x-amz-date');
  if (amzDate !== undefined) {
    const timestamp = parseAmzDate(amzDate.trim());
    return timestamp === undefined ? { sent: amzDate } : { timestamp, sent: amzDate };
  }
  const date = headerText(headers, 'date');
  if (date === undefined) return {};
  const timestamp = parseHttpDate(date.trim());
  return timestamp === undefined ? { sent: date } : { timestamp, sent: date };
}

async function verifyHeaderForm(
  request: VerifyRequest,
  lookupSecret: SecretLookup,
  options: VerifyOptions,
): Promise<VerifyResult> {
  const parsed = parseAuthorizationHeader(headerText(request.headers, 'authorization') ?? '');
  if (!parsed.ok) return failure(parsed.error);
  const auth: HeaderAuthorization = parsed.value;
  const named = { accessKeyId: auth.accessKeyId };
  if (!signsHost(auth.signedHeaders)) return failure('IncompleteSignature', named);

  const scopeError = checkScope(auth.scope, 'header', options);
  if (scopeError !== undefined) return failure(scopeError, named);

  const credential = await lookupSecret(auth.accessKeyId);
  if (credential === null) return failure('InvalidAccessKeyId', named);

  const { timestamp, sent } = requestTimestamp(request.headers);
  if (timestamp === undefined || sent === undefined) return failure('MissingDateHeader', named);
  // A scope from another day than the request: S3 refuses it; the signature could never
  // match a correctly behaving client anyway.
  if (scopeDateOf(timestamp.amzDate) !== auth.scope.date) return failure('SignatureDoesNotMatch', named);

  const maxSkewMs = options.maxSkewMs ?? MAX_CLOCK_SKEW_MS;
  if (Math.abs(request.now.getTime() - timestamp.instant.getTime()) > maxSkewMs) {
    return failure('RequestTimeTooSkewed', { ...named, details: skewDetails(sent, request.now, maxSkewMs) });
  }

  const payloadHash = headerText(request.headers, 'x-amz-content-sha256')?.trim();
  if (payloadHash === undefined) return failure('MissingContentSha256', named);
  if (!HEX_SHA256.test(payloadHash) && !ACCEPTED_PAYLOAD_MODES.includes(payloadHash)) {
    return failure('InvalidContentSha256', named);
  }

  const check = { request, auth, secrets: credential.secrets, timestamp, payloadHash };
  if (!signatureMatches(check, options.signingKeys)) return failure('SignatureDoesNotMatch', named);
  if (SIGNED_STREAMING_MODES.includes(payloadHash)) return failure('SignedStreamingNotImplemented', named);

  return {
    ok: true,
    accessKeyId: auth.accessKeyId,
    form: 'header',
    payloadHash,
    signedHeaders: auth.signedHeaders,
    scope: auth.scope,
    requestTime: timestamp.instant,
  };
}

async function verifyPresignedForm(
  request: VerifyRequest,
  lookupSecret: SecretLookup,
  options: VerifyOptions,
): Promise<VerifyResult> {
  const parsed = parsePresignedQuery(splitRequestTarget(request.rawTarget).query);
  if (!parsed.ok) return failure(parsed.error);
  const auth: PresignedAuthorization = parsed.value;
  const named = { accessKeyId: auth.accessKeyId };

  if (auth.expiresSeconds > (options.maxPresignSeconds ?? MAX_PRESIGN_SECONDS)) {
    return failure('PresignedLifetimeTooLong', named);
  }
  if (!signsHost(auth.signedHeaders)) return failure('IncompleteSignature', named);

  const scopeError = checkScope(auth.scope, 'presigned', options);
  if (scopeError !== undefined) return failure(scopeError, named);

  const credential = await lookupSecret(auth.accessKeyId);
  if (credential === null) return failure('InvalidAccessKeyId', named);

  const timestamp = parseAmzDate(auth.amzDate);
  if (timestamp === undefined || scopeDateOf(timestamp.amzDate) !== auth.scope.date) {
    return failure('AuthorizationQueryParametersMalformed', named);
  }

  // A URL dated in the past is normal (that is what X-Amz-Expires is for); one dated in
  // the future beyond the skew allowance would otherwise extend its own lifetime.
  const maxSkewMs = options.maxSkewMs ?? MAX_CLOCK_SKEW_MS;
  if (timestamp.instant.getTime() - request.now.getTime() > maxSkewMs) {
    return failure('RequestTimeTooSkewed', {
      ...named,
      details: skewDetails(auth.amzDate, request.now, maxSkewMs),
    });
  }

  // The signer put this value in the canonical request before hoisting it into the query;
  // a presigned URL cannot stream, so only a digest or UNSIGNED-PAYLOAD makes sense.
  const payloadHash = auth.contentSha256 ?? UNSIGNED_PAYLOAD;
  if (payloadHash !== UNSIGNED_PAYLOAD && !HEX_SHA256.test(payloadHash)) {
    return failure('InvalidContentSha256', named);
  }

  const check = {
    request,
    auth,
    secrets: credential.secrets,
    timestamp,
    payloadHash,
    excludeQueryParameter: PRESIGN_PARAMS.signature,
  };
  if (!signatureMatches(check, options.signingKeys)) return failure('SignatureDoesNotMatch', named);

  const expiresAt = new Date(timestamp.instant.getTime() + auth.expiresSeconds * 1000);
  if (request.now.getTime() > expiresAt.getTime()) return failure('PresignedUrlExpired', named);

  return {
    ok: true,
    accessKeyId: auth.accessKeyId,
    form: 'presigned',
    payloadHash,
    signedHeaders: auth.signedHeaders,
    scope: auth.scope,
    requestTime: timestamp.instant,
    expiresAt,
  };
}

/**
 * Verifies the SigV4 signature of a request. Anonymous requests (no Authorization header,
 * no presigned parameters) get `AnonymousAccessDenied`: call {@link detectAuthForm} first
 * when anonymous access may be allowed (public buckets). A request that uses both forms
 * at once gets `IncompleteSignature`.
 */
export async function verifySigV4(
  request: VerifyRequest,
  lookupSecret: SecretLookup,
  options: VerifyOptions,
): Promise<VerifyResult> {
  switch (detectAuthForm(request.headers, request.rawTarget)) {
    case 'header':
      return verifyHeaderForm(request, lookupSecret, options);
    case 'presigned':
      return verifyPresignedForm(request, lookupSecret, options);
    case 'ambiguous':
      return failure('IncompleteSignature');
    case 'anonymous':
      return failure('AnonymousAccessDenied');
  }
}

/** A verifier bound to one secret lookup, one option set and one signing-key cache. */
export class SigV4Verifier {
  private readonly options: VerifyOptions;

  constructor(
    private readonly lookupSecret: SecretLookup,
    options: VerifyOptions,
  ) {
    this.options = { ...options, signingKeys: options.signingKeys ?? new SigningKeyCache() };
  }

  verify(request: VerifyRequest): Promise<VerifyResult> {
    return verifySigV4(request, this.lookupSecret, this.options);
  }
}
