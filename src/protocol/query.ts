/**
 * The query string of an S3 request: its parameters in arrival order, each with the raw spelling
 * (what SigV4 canonicalises) and the decoded text (what S3 means), and the names with a fixed
 * meaning: the presigned-URL parameters.
 */
import { lenientPercentDecode, sigV4Encode, strictPercentDecode } from './encoding.js';

export interface QueryParameter {
  /** Decoded name, case as sent. */
  readonly name: string;
  /** Decoded value; '' for a bare subresource such as `?uploads`. */
  readonly value: string;
  /** True when the parameter had no `=` at all. */
  readonly bare: boolean;
  /** The name exactly as received, still percent-encoded. */
  readonly rawName: string;
  /** The value exactly as received, still percent-encoded; '' when bare. */
  readonly rawValue: string;
  /** False when an escape is malformed or decodes to bytes that are not UTF-8 (then decoded leniently). */
  readonly wellFormed: boolean;
}

/** Splits a raw query string (no leading `?`). Empty pieces (`a=1&&b=2`, a trailing `&`) carry no parameter. */
export function parseQuery(rawQuery: string): QueryParameter[] {
  const parameters: QueryParameter[] = [];
  if (rawQuery === '') return parameters;
  for (const piece of rawQuery.split('&')) {
    if (piece === '') continue;
    const equals = piece.indexOf('=');
    const rawName = equals === -1 ? piece : piece.slice(0, equals);
    const rawValue = equals === -1 ? '' : piece.slice(equals + 1);
    // Malformed escapes or bytes that are not UTF-8 are decoded leniently, and marked.
    const name = strictPercentDecode(rawName);
    const value = strictPercentDecode(rawValue);
    parameters.push({
      name: name ?? lenientPercentDecode(rawName),
      value: value ?? lenientPercentDecode(rawValue),
      bare: equals === -1,
      rawName,
      rawValue,
      wellFormed: name !== null && value !== null,
    });
  }
  return parameters;
}

/** Up to this many parameters, a repeated name is looked for pairwise. */
const PAIRWISE_AT_MOST = 16;

/**
 * The first name the query gives more than once, or null. S3 requests name each parameter once;
 * stores disagree on which of two values counts (Ceph RGW keeps the last), so a gateway that reads
 * one of them must not forward the other.
 */
export function repeatedName(query: readonly QueryParameter[]): string | null {
  // The few parameters of most requests are compared pairwise, without a set per request; a long
  // query (a client's to make) goes through one, so it costs n, not n².
  if (query.length > PAIRWISE_AT_MOST) {
    const seen = new Set<string>();
    for (const { name } of query) {
      if (seen.has(name)) return name;
      seen.add(name);
    }
    return null;
  }
  for (let later = 1; later < query.length; later += 1) {
    const name = (query[later] as QueryParameter).name;
    for (let earlier = 0; earlier < later; earlier += 1)
      if ((query[earlier] as QueryParameter).name === name) return name;
  }
  return null;
}

/** The value of a query parameter (first occurrence), or undefined. */
export function queryValue(query: readonly QueryParameter[], name: string): string | undefined {
  for (const parameter of query) if (parameter.name === name) return parameter.value;
  return undefined;
}

/** A parameter built by the gateway (for its own requests to the store). */
export function queryParameter(name: string, value: string): QueryParameter {
  return {
    name,
    value,
    bare: false,
    rawName: sigV4Encode(name),
    rawValue: sigV4Encode(value),
    wellFormed: true,
  };
}

/** The query as sent on the wire: SigV4 encoding, so what a store canonicalises is what was signed. */
export function encodeQuery(query: readonly Pick<QueryParameter, 'name' | 'value' | 'bare'>[]): string {
  let encoded = '';
  for (const parameter of query) {
    if (encoded !== '') encoded += '&';
    encoded += parameter.bare
      ? sigV4Encode(parameter.name)
      : `${sigV4Encode(parameter.name)}=${sigV4Encode(parameter.value)}`;
  }
  return encoded;
}

/** Presigned-URL query parameters (names are case-sensitive, as clients send them). */
export const PRESIGN_PARAMS = {
  algorithm: 'X-Amz-Algorithm',
  credential: 'X-Amz-Credential',
  date: 'X-Amz-Date',
  expires: 'X-Amz-Expires',
  signedHeaders: 'X-Amz-SignedHeaders',
  signature: 'X-Amz-Signature',
  securityToken: 'X-Amz-Security-Token',
  /** Optional; the AWS SDK presigner adds it with UNSIGNED-PAYLOAD. */
  contentSha256: 'X-Amz-Content-Sha256',
} as const;

/** The presigned parameters in lower case: they carry the signature itself, never a header, never forwarded. */
const PRESIGN_AUTH_PARAMETERS: ReadonlySet<string> = new Set(
  Object.values(PRESIGN_PARAMS).map((name) => name.toLowerCase()),
);

/** The presigned parameters as clients spell them: most names are read without lower-casing. */
export const PRESIGN_PARAMETER_NAMES: ReadonlySet<string> = new Set(Object.values(PRESIGN_PARAMS));

export function isPresignAuthParameter(name: string): boolean {
  return PRESIGN_PARAMETER_NAMES.has(name) || PRESIGN_AUTH_PARAMETERS.has(name.toLowerCase());
}

/**
 * `name` in lower case when it begins with `lowerPrefix` in any case, else null. Only an x or X
 * lower-cases to x (and so for every letter the prefixes here begin with), so a name that cannot
 * qualify is told apart by its first character, without a lower-case copy.
 */
function lowerWithPrefix(name: string, lowerPrefix: string): string | null {
  if (name.length < lowerPrefix.length || (name.charCodeAt(0) | 0x20) !== lowerPrefix.charCodeAt(0))
    return null;
  const lower = name.toLowerCase();
  return lower.startsWith(lowerPrefix) ? lower : null;
}

/** An `x-amz-*` query parameter that stands for a header (presigned URLs hoist headers into the query). */
export function isHoistedHeaderParameter(name: string): boolean {
  if (PRESIGN_PARAMETER_NAMES.has(name)) return false;
  const lower = lowerWithPrefix(name, 'x-amz-');
  return lower !== null && !PRESIGN_AUTH_PARAMETERS.has(lower);
}

/** A `response-*` parameter, in any case: it sets a header of the store's answer (S3's overrides). */
export function isResponseOverrideParameter(name: string): boolean {
  return lowerWithPrefix(name, 'response-') !== null;
}
