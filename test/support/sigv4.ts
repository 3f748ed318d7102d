/** Verifying requests as they arrived on the wire, for tests and test backends. */
import type { HeaderMap } from '../../src/protocol/headers.js';
import { splitRequestTarget } from '../../src/protocol/paths.js';
import { parseQuery } from '../../src/protocol/query.js';
import {
  SigV4Verifier,
  type Authentication,
  type VerifyOptions,
  type VerifyRequest,
} from '../../src/sigv4/verify.js';

/** A request as it arrives: the raw target, not yet taken apart. */
export interface TargetRequest {
  readonly method: string;
  readonly rawTarget: string;
  readonly headers: HeaderMap;
  readonly now: Date;
}

/** The verifier's view of a request that arrived as `request` (its body described by its own headers). */
export function verifyRequestOf(request: TargetRequest): VerifyRequest {
  const { path, query } = splitRequestTarget(request.rawTarget);
  return {
    method: request.method,
    path,
    query: parseQuery(query),
    headers: request.headers,
    bodyHeaders: request.method === 'PUT' || request.method === 'POST' ? request.headers : null,
    now: request.now,
  };
}

/** A secret table as the tests use it: access key id → its usable secrets; null when unknown. */
export type SecretLookup = (accessKeyId: string) => Promise<{ secrets: readonly string[] } | null>;

/** A verifier over a secret table, the table's entry standing in for the credential record. */
export function verifierOf(
  lookup: SecretLookup,
  options: VerifyOptions,
): SigV4Verifier<{ secrets: readonly string[] }> {
  return new SigV4Verifier(async (accessKeyId) => {
    const found = await lookup(accessKeyId);
    return found === null ? null : { credential: found, secrets: found.secrets };
  }, options);
}

/** Verifies one request as it arrived, with a fresh verifier. */
export function verifyTarget(
  request: TargetRequest,
  lookup: SecretLookup,
  options: VerifyOptions,
): Promise<Authentication<{ secrets: readonly string[] }>> {
  return verifierOf(lookup, options).authenticate(verifyRequestOf(request));
}
