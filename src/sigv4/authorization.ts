/**
 * Parsing of the two places a SigV4 signature can travel: the `Authorization` header and
 * the presigned-URL query. Parsing only checks shape; whether the values are acceptable
 * (region, lifetime, clock) is decided in verify.ts so every rule has one home.
 */

import type { S3ErrorKey } from '../protocol/errors.js';
import { headerValue, HEX_SHA256, type HeaderMap } from '../protocol/headers.js';
import { PRESIGN_PARAMETER_NAMES, PRESIGN_PARAMS, type QueryParameter } from '../protocol/query.js';
import type { SigningScope } from './canonical.js';
import { SCOPE_TERMINATOR, SIGV4_ALGORITHM } from './constants.js';

export type ParseResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: S3ErrorKey };

export interface ParsedCredential {
  readonly accessKeyId: string;
  readonly scope: SigningScope;
}

export interface HeaderAuthorization extends ParsedCredential {
  readonly form: 'header';
  /** Header names exactly as the client listed them. */
  readonly signedHeaders: readonly string[];
  /** Lower-case hex. */
  readonly signature: string;
}

export interface PresignedAuthorization extends ParsedCredential {
  readonly form: 'presigned';
  readonly signedHeaders: readonly string[];
  readonly signature: string;
  /** X-Amz-Date as sent; its format is checked by the verifier. */
  readonly amzDate: string;
  readonly expiresSeconds: number;
  readonly securityToken?: string;
  /** X-Amz-Content-Sha256 when the URL carries one; its value is checked by the verifier. */
  readonly contentSha256?: string;
}

/** `signature-v2`: signed with AWS's retired Signature Version 2, which this endpoint does not verify. */
export type AuthForm = 'header' | 'presigned' | 'anonymous' | 'ambiguous' | 'signature-v2';

/** `AWS <access key id>:<signature>`, the Signature Version 2 header. */
const SIGV2_HEADER = /^AWS [^\s:]+:\S+$/;

/** An HTTP field-name token: what may appear in a SignedHeaders list. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SCOPE_DATE = /^\d{8}$/;

function fail<T>(error: S3ErrorKey): ParseResult<T> {
  return { ok: false, error };
}

/** `AKID/20130524/us-east-1/s3/aws4_request`: exactly five non-empty parts, a date, the terminator. */
export function parseCredential(credential: string): ParsedCredential | undefined {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts.some((part) => part === '')) return undefined;
  const [accessKeyId, date, region, service, terminator] = parts as [string, string, string, string, string];
  if (!SCOPE_DATE.test(date) || terminator !== SCOPE_TERMINATOR) return undefined;
  return { accessKeyId, scope: { date, region, service } };
}

export function parseSignedHeaders(list: string): string[] | undefined {
  const names = list.split(';');
  return names.every((name) => HEADER_NAME.test(name)) ? names : undefined;
}

function parseSignature(value: string): string | undefined {
  return HEX_SHA256.test(value) ? value.toLowerCase() : undefined;
}

/**
 * The header as clients vary it: the algorithm, then three `name=value` components separated by
 * any run of commas and white space (none of the values can contain either). One match, where
 * splitting on the separators allocated a kilobyte per request (BENCHMARKS.md, change 36).
 */
const AUTHORIZATION = new RegExp(
  `^\\s*${SIGV4_ALGORITHM}${'[\\s,]+([^\\s,=]+)=([^\\s,]*)'.repeat(3)}[\\s,]*$`,
);

/**
 * Parses `AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...`.
 * Separators are tolerated the way clients vary them: any run of commas and spaces between
 * components, components in any order. Anything else malformed is `IncompleteSignature`.
 */
export function parseAuthorizationHeader(value: string): ParseResult<HeaderAuthorization> {
  const match = AUTHORIZATION.exec(value);
  if (match === null) return fail('IncompleteSignature');

  let credentialText: string | undefined;
  let signedHeadersText: string | undefined;
  let signatureText: string | undefined;
  for (let index = 1; index < match.length; index += 2) {
    const name = match[index];
    const component = match[index + 1];
    // Each component once: a second one is as incomplete as an unknown one.
    if (name === 'Credential' && credentialText === undefined) credentialText = component;
    else if (name === 'SignedHeaders' && signedHeadersText === undefined) signedHeadersText = component;
    else if (name === 'Signature' && signatureText === undefined) signatureText = component;
    else return fail('IncompleteSignature');
  }

  const credential = parseCredential(credentialText ?? '');
  const signedHeaders = parseSignedHeaders(signedHeadersText ?? '');
  const signature = parseSignature(signatureText ?? '');
  if (credential === undefined || signedHeaders === undefined || signature === undefined) {
    return fail('IncompleteSignature');
  }
  return { ok: true, value: { form: 'header', ...credential, signedHeaders, signature } };
}

/** The X-Amz-* parameters of a presigned URL, by the name each is sent under. */
type PresignValues = { [name in (typeof PRESIGN_PARAMS)[keyof typeof PRESIGN_PARAMS]]?: string };

const CONTENT_SHA256_LOWER = PRESIGN_PARAMS.contentSha256.toLowerCase();

/**
 * Reads the X-Amz-* parameters of a presigned URL from the raw query string. A missing,
 * repeated or malformed parameter is `AuthorizationQueryParametersMalformed`.
 */
export function parsePresignedQuery(query: readonly QueryParameter[]): ParseResult<PresignedAuthorization> {
  const values: PresignValues = {};
  for (const parameter of query) {
    // Signers hoist x-amz-content-sha256 into the query with whatever case the header had.
    const name =
      parameter.name.length === CONTENT_SHA256_LOWER.length &&
      parameter.name.toLowerCase() === CONTENT_SHA256_LOWER
        ? PRESIGN_PARAMS.contentSha256
        : parameter.name;
    if (!PRESIGN_PARAMETER_NAMES.has(name)) continue;
    const known = name as keyof PresignValues;
    // Two values for one auth parameter make "which one was signed" ambiguous.
    if (values[known] !== undefined) return fail('AuthorizationQueryParametersMalformed');
    values[known] = parameter.value;
  }
  const algorithm = values[PRESIGN_PARAMS.algorithm];
  const credentialText = values[PRESIGN_PARAMS.credential];
  const amzDate = values[PRESIGN_PARAMS.date];
  const expires = values[PRESIGN_PARAMS.expires];
  const signedHeadersText = values[PRESIGN_PARAMS.signedHeaders];
  const signatureText = values[PRESIGN_PARAMS.signature];
  if (
    algorithm === undefined ||
    credentialText === undefined ||
    amzDate === undefined ||
    expires === undefined ||
    signedHeadersText === undefined ||
    signatureText === undefined
  ) {
    return fail('AuthorizationQueryParametersMalformed');
  }

  const credential = parseCredential(credentialText);
  const signedHeaders = parseSignedHeaders(signedHeadersText);
  const signature = parseSignature(signatureText);
  if (
    algorithm !== SIGV4_ALGORITHM ||
    // Ten digits is far beyond any lifetime we accept yet still an exact JS number.
    !/^\d{1,10}$/.test(expires) ||
    credential === undefined ||
    signedHeaders === undefined ||
    signature === undefined
  ) {
    return fail('AuthorizationQueryParametersMalformed');
  }

  const parsed: { -readonly [field in keyof PresignedAuthorization]: PresignedAuthorization[field] } = {
    form: 'presigned',
    accessKeyId: credential.accessKeyId,
    scope: credential.scope,
    signedHeaders,
    signature,
    amzDate,
    expiresSeconds: Number(expires),
  };
  const securityToken = values[PRESIGN_PARAMS.securityToken];
  if (securityToken !== undefined) parsed.securityToken = securityToken;
  const contentSha256 = values[PRESIGN_PARAMS.contentSha256];
  if (contentSha256 !== undefined) parsed.contentSha256 = contentSha256;
  return { ok: true, value: parsed };
}

/**
 * Which authentication the request attempts. A request carrying both an Authorization
 * header and presigned parameters is `ambiguous` (S3 refuses it: one mechanism only);
 * one carrying neither is `anonymous` and belongs to the public-bucket path.
 */
export function detectAuthForm(headers: HeaderMap, query: readonly QueryParameter[]): AuthForm {
  // A present but empty Authorization header is a malformed signature, not an anonymous request.
  const hasHeader = headerValue(headers, 'authorization') !== undefined;
  let hasQuery = false;
  for (const { name } of query) {
    if (
      name === PRESIGN_PARAMS.algorithm ||
      name === PRESIGN_PARAMS.credential ||
      name === PRESIGN_PARAMS.signature
    ) {
      hasQuery = true;
      break;
    }
  }
  if (hasHeader && hasQuery) return 'ambiguous';
  if (hasHeader)
    return SIGV2_HEADER.test(headerValue(headers, 'authorization') ?? '') ? 'signature-v2' : 'header';
  if (hasQuery) return 'presigned';
  return isSignatureV2Query(query) ? 'signature-v2' : 'anonymous';
}

/** A Signature Version 2 presigned URL: `AWSAccessKeyId`, `Signature` and `Expires`. */
function isSignatureV2Query(query: readonly QueryParameter[]): boolean {
  let accessKeyId = false;
  let signature = false;
  for (const { name } of query) {
    if (name === 'AWSAccessKeyId') accessKeyId = true;
    else if (name === 'Signature') signature = true;
  }
  return accessKeyId && signature;
}
