/**
 * SigV4 authentication of one S3 request, header or presigned form, or none (anonymous).
 *
 * The checks run in a fixed order, because the order decides which error a client sees and what
 * an unauthenticated caller can learn:
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
 * Expiry is checked after the signature so that only the holder of a genuine URL learns that it
 * expired; a forged or altered URL always gets SignatureDoesNotMatch.
 *
 * The result carries everything the rest of the request needs from authentication: the credential
 * record the lookup returned (looked up once), the payload mode the signature covers, and the
 * plan for the body. Credential expiry, suspension, scope and dot-segment keys are the caller's
 * business; this module answers only "who signed this request, and what does that promise".
 */
import { S3_ERRORS, type S3ErrorKey } from '../protocol/errors.js';
import {
  headerValue,
  HEX_SHA256,
  STREAMING_SIGNED_PAYLOAD,
  STREAMING_SIGNED_PAYLOAD_TRAILER,
  STREAMING_UNSIGNED_PAYLOAD_TRAILER,
  UNSIGNED_PAYLOAD,
  type HeaderMap,
} from '../protocol/headers.js';
import { MAX_CLOCK_SKEW_SECONDS, MAX_PRESIGN_SECONDS } from '../protocol/limits.js';
import { PRESIGN_PARAMS, type QueryParameter } from '../protocol/query.js';
import { parseAmzDate, parseHttpDate, scopeDateOf, type SigningTimestamp } from './amz-date.js';
import {
  detectAuthForm,
  parseAuthorizationHeader,
  parseCredential,
  parsePresignedQuery,
  type ParsedCredential,
} from './authorization.js';
import { NO_BODY, planBody, type BodyPlanResult } from './body-plan.js';
import {
  buildCanonicalRequest,
  canonicalQueryString,
  canonicalUri,
  stringToSign,
  type SigningScope,
} from './canonical.js';
import { S3_SERVICE, SIGV4_ALGORITHM } from './constants.js';
import { signaturesEqual, SigningKeyCache, signStringToSign } from './signing-key.js';

export interface VerifyRequest {
  /** HTTP method as received (Node gives it upper-case). */
  readonly method: string;
  /** The path exactly as received, still percent-encoded. */
  readonly path: string;
  /** The query as received (protocol/query.ts parseQuery). */
  readonly query: readonly QueryParameter[];
  /** The headers as received; repeated headers as arrays (`req.headersDistinct`) where there are any. */
  readonly headers: HeaderMap;
  /**
   * The headers that describe the body: presigned URLs' hoisted headers applied, and for a
   * CompleteMultipartUpload without its x-amz-checksum-* (those describe the whole object).
   * Null when the request's body is never read (GET, HEAD, DELETE).
   */
  readonly bodyHeaders: HeaderMap | null;
  readonly now: Date;
}

/** A credential found by its access key id, with every secret that may have signed for it now. */
export interface FoundCredential<Credential extends object> {
  readonly credential: Credential;
  /** The current secret, then the previous one during a rotation's grace period. */
  readonly secrets: readonly string[];
}

/** Resolves an access key id; null when no such key exists (unknown or revoked). */
export type CredentialLookup<Credential extends object> = (
  accessKeyId: string,
) => FoundCredential<Credential> | null | Promise<FoundCredential<Credential> | null>;

export interface VerifyOptions {
  /** Regions a credential scope may name, e.g. ['us-east-1', 'auto']. */
  readonly allowedRegions: readonly string[];
  /** Largest accepted clock difference in seconds; fifteen minutes unless set. */
  readonly maxSkewSeconds?: number;
}

export type AuthenticationForm = 'header' | 'presigned' | 'form';

/** The SigV4 fields of a browser form upload (POST Object), by their form names. */
export interface FormSignature {
  readonly algorithm: string | undefined;
  readonly credential: string | undefined;
  readonly date: string | undefined;
  readonly policy: string | undefined;
  readonly signature: string | undefined;
  readonly now: Date;
}

export interface FormVerified<Credential extends object> {
  readonly ok: true;
  readonly credential: Credential;
  readonly accessKeyId: string;
  /** The form's x-amz-date: the policy's lifetime counts from it. */
  readonly signedAt: Date;
}

export interface Anonymous {
  readonly ok: true;
  readonly kind: 'anonymous';
  readonly bodyPlan: BodyPlanResult;
}

export interface Verified<Credential extends object> {
  readonly ok: true;
  readonly kind: 'credential';
  readonly credential: Credential;
  readonly accessKeyId: string;
  readonly form: AuthenticationForm;
  /**
   * What the signature says the body is: the x-amz-content-sha256 value (hex digest,
   * UNSIGNED-PAYLOAD or STREAMING-UNSIGNED-PAYLOAD-TRAILER); for presigned URLs UNSIGNED-PAYLOAD
   * unless the URL carries X-Amz-Content-Sha256.
   */
  readonly payloadMode: string;
  /** How the body must be decoded and verified, or why it is refused (raised after authorisation). */
  readonly bodyPlan: BodyPlanResult;
  /** The header names the signature covers, as the client listed them. */
  readonly signedHeaders: readonly string[];
  readonly scope: SigningScope;
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
  /** The message, where the catalogue's needs the request's particulars (the region it named). */
  readonly message?: string;
}

export type Authentication<Credential extends object> = Anonymous | Verified<Credential> | VerifyFailure;

function failure(error: S3ErrorKey, extra: Omit<VerifyFailure, 'ok' | 'error'> = {}): VerifyFailure {
  return { ok: false, error, ...extra };
}

const ACCEPTED_PAYLOAD_MODES: readonly string[] = [
  UNSIGNED_PAYLOAD,
  STREAMING_UNSIGNED_PAYLOAD_TRAILER,
  STREAMING_SIGNED_PAYLOAD,
  STREAMING_SIGNED_PAYLOAD_TRAILER,
];

/** The catalogue's region message, told which region was named and which ones are accepted. */
function regionMessage(base: string, named: string, accepted: readonly string[]): string {
  const [what] = base.split(';');
  const others =
    accepted.length > 1 ? ` (accepted: ${accepted.map((region) => `'${region}'`).join(', ')})` : '';
  return `${what}; the region '${named}' is wrong; expecting '${accepted[0]}'${others}.`;
}

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

function signsHost(signedHeaders: readonly string[]): boolean {
  return signedHeaders.some((name) => name.toLowerCase() === 'host');
}

/** x-amz-date wins; a bare Date header is the SigV4 fallback. An unparseable x-amz-date does not fall back. */
function requestTimestamp(headers: HeaderMap): { timestamp?: SigningTimestamp; sent?: string } {
  const amzDate = headerValue(headers, 'x-amz-date');
  if (amzDate !== undefined) {
    const timestamp = parseAmzDate(amzDate.trim());
    return timestamp === undefined ? { sent: amzDate } : { timestamp, sent: amzDate };
  }
  const date = headerValue(headers, 'date');
  if (date === undefined) return {};
  const timestamp = parseHttpDate(date.trim());
  return timestamp === undefined ? { sent: date } : { timestamp, sent: date };
}

interface SignatureCheck {
  readonly auth: ParsedCredential & { readonly signedHeaders: readonly string[]; readonly signature: string };
  readonly timestamp: SigningTimestamp;
  readonly payloadHash: string;
  /** Presigned URLs carry their own signature in the query; it cannot sign itself. */
  readonly excludeQueryParameter?: string;
}

/** A verifier bound to one credential lookup and one set of options, with its signing-key cache. */
export class SigV4Verifier<Credential extends object> {
  readonly #lookup: CredentialLookup<Credential>;
  readonly #allowedRegions: readonly string[];
  readonly #maxSkewMs: number;
  readonly #keys = new SigningKeyCache();

  constructor(lookup: CredentialLookup<Credential>, options: VerifyOptions) {
    this.#lookup = lookup;
    this.#allowedRegions = options.allowedRegions;
    this.#maxSkewMs = (options.maxSkewSeconds ?? MAX_CLOCK_SKEW_SECONDS) * 1000;
  }

  /**
   * Who sent the request. A request carrying both forms of signature is `IncompleteSignature`;
   * one carrying neither is anonymous (the caller decides what anonymous callers may do).
   */
  async authenticate(request: VerifyRequest): Promise<Authentication<Credential>> {
    switch (detectAuthForm(request.headers, request.query)) {
      // Awaited here: an async function handing on another's promise costs two more turns.
      case 'header':
        return await this.#verifyHeaderForm(request);
      case 'presigned':
        return await this.#verifyPresignedForm(request);
      case 'ambiguous':
        return failure('IncompleteSignature');
      case 'signature-v2':
        return failure('UnsupportedSignatureVersion');
      case 'anonymous':
        return {
          ok: true,
          kind: 'anonymous',
          bodyPlan: request.bodyHeaders === null ? NO_BODY : planBody(request.bodyHeaders),
        };
    }
  }

  /**
   * Who signed a form upload's policy: the signature covers the base64 policy itself, with the
   * signing key of the credential's scope. Missing or malformed fields are
   * `FormAuthenticationMalformed`; then region, service, unknown key, date and signature as for the
   * other forms. The policy's own expiry and conditions are the caller's (post-policy.ts), checked
   * after this, so only the holder of a genuine policy learns why it does not hold.
   */
  async authenticateForm(form: FormSignature): Promise<FormVerified<Credential> | VerifyFailure> {
    const { algorithm, date, policy, signature } = form;
    const parsed = parseCredential(form.credential ?? '');
    if (
      algorithm !== SIGV4_ALGORITHM ||
      parsed === undefined ||
      date === undefined ||
      policy === undefined ||
      policy === '' ||
      signature === undefined ||
      !HEX_SHA256.test(signature)
    ) {
      return failure(
        'FormAuthenticationMalformed',
        parsed === undefined ? {} : { accessKeyId: parsed.accessKeyId },
      );
    }
    const named = { accessKeyId: parsed.accessKeyId };
    const scopeError = this.#checkScope(parsed.scope, 'presigned', named);
    if (scopeError !== undefined) return scopeError;
    const lookup = this.#lookup(parsed.accessKeyId);
    const found = lookup instanceof Promise ? await lookup : lookup;
    if (found === null) return failure('InvalidAccessKeyId', named);
    const timestamp = parseAmzDate(date.trim());
    if (timestamp === undefined || scopeDateOf(timestamp.amzDate) !== parsed.scope.date) {
      return failure('FormAuthenticationMalformed', named);
    }
    // As for a presigned URL: a form dated in the future beyond the skew allowance would extend
    // its policy's lifetime (which counts from this date) by as much.
    if (timestamp.instant.getTime() - form.now.getTime() > this.#maxSkewMs) {
      return failure('RequestTimeTooSkewed', {
        ...named,
        details: skewDetails(date.trim(), form.now, this.#maxSkewMs),
      });
    }
    let matched = false;
    for (let slot = 0; slot < found.secrets.length; slot += 1) {
      const key = this.#keys.signingKey(found.credential, slot, found.secrets[slot] as string, parsed.scope);
      if (signaturesEqual(signStringToSign(key, policy), signature.toLowerCase())) matched = true;
    }
    if (!matched) return failure('SignatureDoesNotMatch', named);
    return {
      ok: true,
      credential: found.credential,
      accessKeyId: parsed.accessKeyId,
      signedAt: timestamp.instant,
    };
  }

  #checkScope(
    scope: SigningScope,
    form: AuthenticationForm,
    named: { accessKeyId: string },
  ): VerifyFailure | undefined {
    if (!this.#allowedRegions.includes(scope.region)) {
      const error =
        form === 'header' ? 'AuthorizationHeaderMalformedRegion' : 'AuthorizationQueryParametersRegion';
      // S3's <Region> names the region to sign for; boto3 re-signs for it by itself.
      const expected = this.#allowedRegions[0] as string;
      return failure(error, {
        ...named,
        details: { Region: expected },
        message: regionMessage(S3_ERRORS[error].message, scope.region, this.#allowedRegions),
      });
    }
    if (scope.service !== S3_SERVICE) {
      return failure(
        form === 'header' ? 'AuthorizationHeaderMalformedService' : 'AuthorizationQueryParametersService',
        named,
      );
    }
    return undefined;
  }

  /**
   * Canonical URIs a genuine client may have signed: the normalised form (what S3 computes and
   * the AWS SDKs produce) and, when it differs, the path exactly as received, because some signers
   * sign the escapes they send (`%7E`, lower-case hex); both name the same decoded key.
   */
  #signatureMatches(
    request: VerifyRequest,
    found: FoundCredential<Credential>,
    check: SignatureCheck,
  ): boolean {
    const canonicalQuery = canonicalQueryString(request.query, check.excludeQueryParameter);
    const normalised = canonicalUri(request.path);
    const uris =
      request.path === '' || request.path === normalised ? [normalised] : [normalised, request.path];
    const stringsToSign = uris.map((uri) =>
      stringToSign(
        check.timestamp.amzDate,
        check.auth.scope,
        buildCanonicalRequest({
          method: request.method,
          canonicalUri: uri,
          canonicalQuery,
          headers: request.headers,
          signedHeaders: check.auth.signedHeaders,
          payloadHash: check.payloadHash,
        }),
      ),
    );
    let matched = false;
    // Every combination is computed even after a match, so timing does not reveal which secret
    // (old or new during rotation) signed the request.
    for (let slot = 0; slot < found.secrets.length; slot += 1) {
      const secret = found.secrets[slot] as string;
      const key = this.#keys.signingKey(found.credential, slot, secret, check.auth.scope);
      for (const candidate of stringsToSign) {
        if (signaturesEqual(signStringToSign(key, candidate), check.auth.signature)) matched = true;
      }
    }
    return matched;
  }

  async #verifyHeaderForm(request: VerifyRequest): Promise<Authentication<Credential>> {
    const parsed = parseAuthorizationHeader(headerValue(request.headers, 'authorization') ?? '');
    if (!parsed.ok) return failure(parsed.error);
    const auth = parsed.value;
    const named = { accessKeyId: auth.accessKeyId };
    if (!signsHost(auth.signedHeaders)) return failure('IncompleteSignature', named);

    const scopeError = this.#checkScope(auth.scope, 'header', named);
    if (scopeError !== undefined) return scopeError;

    const lookup = this.#lookup(auth.accessKeyId);
    const found = lookup instanceof Promise ? await lookup : lookup;
    if (found === null) return failure('InvalidAccessKeyId', named);

    const { timestamp, sent } = requestTimestamp(request.headers);
    if (timestamp === undefined || sent === undefined) return failure('MissingDateHeader', named);
    // A scope from another day than the request: S3 refuses it; the signature could never match
    // a correctly behaving client anyway.
    if (scopeDateOf(timestamp.amzDate) !== auth.scope.date) return failure('SignatureDoesNotMatch', named);

    if (Math.abs(request.now.getTime() - timestamp.instant.getTime()) > this.#maxSkewMs) {
      return failure('RequestTimeTooSkewed', {
        ...named,
        details: skewDetails(sent, request.now, this.#maxSkewMs),
      });
    }

    const payloadMode = headerValue(request.headers, 'x-amz-content-sha256')?.trim();
    if (payloadMode === undefined) return failure('MissingContentSha256', named);
    if (!ACCEPTED_PAYLOAD_MODES.includes(payloadMode) && !HEX_SHA256.test(payloadMode)) {
      return failure('InvalidContentSha256', named);
    }

    if (!this.#signatureMatches(request, found, { auth, timestamp, payloadHash: payloadMode })) {
      return failure('SignatureDoesNotMatch', named);
    }
    if (payloadMode === STREAMING_SIGNED_PAYLOAD || payloadMode === STREAMING_SIGNED_PAYLOAD_TRAILER) {
      return failure('SignedStreamingNotImplemented', named);
    }
    return {
      ok: true,
      kind: 'credential',
      credential: found.credential,
      accessKeyId: auth.accessKeyId,
      form: 'header',
      payloadMode,
      bodyPlan: request.bodyHeaders === null ? NO_BODY : planBody(request.bodyHeaders, payloadMode),
      signedHeaders: auth.signedHeaders,
      scope: auth.scope,
      requestTime: timestamp.instant,
    };
  }

  async #verifyPresignedForm(request: VerifyRequest): Promise<Authentication<Credential>> {
    const parsed = parsePresignedQuery(request.query);
    if (!parsed.ok) return failure(parsed.error);
    const auth = parsed.value;
    const named = { accessKeyId: auth.accessKeyId };

    if (auth.expiresSeconds > MAX_PRESIGN_SECONDS) return failure('PresignedLifetimeTooLong', named);
    if (!signsHost(auth.signedHeaders)) return failure('IncompleteSignature', named);

    const scopeError = this.#checkScope(auth.scope, 'presigned', named);
    if (scopeError !== undefined) return scopeError;

    const lookup = this.#lookup(auth.accessKeyId);
    const found = lookup instanceof Promise ? await lookup : lookup;
    if (found === null) return failure('InvalidAccessKeyId', named);

    const timestamp = parseAmzDate(auth.amzDate);
    if (timestamp === undefined || scopeDateOf(timestamp.amzDate) !== auth.scope.date) {
      return failure('AuthorizationQueryParametersMalformed', named);
    }

    // A URL dated in the past is normal (that is what X-Amz-Expires is for); one dated in the
    // future beyond the skew allowance would otherwise extend its own lifetime.
    if (timestamp.instant.getTime() - request.now.getTime() > this.#maxSkewMs) {
      return failure('RequestTimeTooSkewed', {
        ...named,
        details: skewDetails(auth.amzDate, request.now, this.#maxSkewMs),
      });
    }

    // The signer put this value in the canonical request before hoisting it into the query; a
    // presigned URL cannot stream, so only a digest or UNSIGNED-PAYLOAD makes sense.
    const payloadMode = auth.contentSha256 ?? UNSIGNED_PAYLOAD;
    if (payloadMode !== UNSIGNED_PAYLOAD && !HEX_SHA256.test(payloadMode)) {
      return failure('InvalidContentSha256', named);
    }

    const check = {
      auth,
      timestamp,
      payloadHash: payloadMode,
      excludeQueryParameter: PRESIGN_PARAMS.signature,
    };
    if (!this.#signatureMatches(request, found, check)) return failure('SignatureDoesNotMatch', named);

    const expiresAt = timestamp.instant.getTime() + auth.expiresSeconds * 1000;
    if (request.now.getTime() > expiresAt) return failure('PresignedUrlExpired', named);

    return {
      ok: true,
      kind: 'credential',
      credential: found.credential,
      accessKeyId: auth.accessKeyId,
      form: 'presigned',
      payloadMode,
      bodyPlan: request.bodyHeaders === null ? NO_BODY : planBody(request.bodyHeaders, payloadMode),
      signedHeaders: auth.signedHeaders,
      scope: auth.scope,
      requestTime: timestamp.instant,
      expiresAt: new Date(expiresAt),
    };
  }
}
