/**
 * SigV4 signing keys and signature comparison.
 *
 * Deriving a key costs four HMACs; a busy credential signs thousands of requests a day with
 * the same (secret, date, region, service), so derived keys are cached in a bounded LRU.
 * The cache key identifies the secret by a keyed fingerprint (HMAC under a per-process
 * random key), so neither a heap dump nor a debug print of the cache reveals a secret or
 * even a plain hash of one. Keys are held as KeyObjects: node:crypto prepares a raw key on every
 * createHmac call, which costs several times the HMAC itself on a short string-to-sign.
 */

import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

import { LRUCache } from 'lru-cache';

import { SCOPE_TERMINATOR } from './constants.js';
import type { CredentialScope } from './canonical.js';

function hmac(key: string | Uint8Array, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** kSecret → kDate → kRegion → kService → kSigning, as SigV4 defines it. */
export function deriveSigningKey(secret: string, scope: CredentialScope): Buffer {
  const dateKey = hmac(`AWS4${secret}`, scope.date);
  const regionKey = hmac(dateKey, scope.region);
  const serviceKey = hmac(regionKey, scope.service);
  return hmac(serviceKey, SCOPE_TERMINATOR);
}

/** The hex signature of a string-to-sign. */
export function signStringToSign(signingKey: KeyObject | Uint8Array, stringToSign: string): string {
  return createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
}

export interface SigningKeyCacheOptions {
  /** Most derived keys kept; the least recently used goes first. */
  readonly maxEntries?: number;
}

export class SigningKeyCache {
  private readonly keys: LRUCache<string, KeyObject>;
  /** Never leaves the process, so fingerprints made with it are meaningless elsewhere. */
  private readonly fingerprintKey = createSecretKey(randomBytes(32));

  constructor(options: SigningKeyCacheOptions = {}) {
    this.keys = new LRUCache<string, KeyObject>({ max: options.maxEntries ?? 10_000 });
  }

  get size(): number {
    return this.keys.size;
  }

  signingKey(secret: string, scope: CredentialScope): KeyObject {
    const cacheKey = this.cacheKey(secret, scope);
    const cached = this.keys.get(cacheKey);
    if (cached !== undefined) return cached;
    const derived = createSecretKey(deriveSigningKey(secret, scope));
    this.keys.set(cacheKey, derived);
    return derived;
  }

  /** Exposed for tests that assert the secret never appears in a key. */
  cacheKey(secret: string, scope: CredentialScope): string {
    const fingerprint = createHmac('sha256', this.fingerprintKey).update(secret, 'utf8').digest('base64');
    // Scope parts come from a `/`-split credential, so `/` cannot occur inside them.
    return `${fingerprint}/${scope.date}/${scope.region}/${scope.service}`;
  }

  clear(): void {
    this.keys.clear();
  }
}

const HEX_SIGNATURE = /^[0-9a-f]{64}$/;

/**
 * Compares two hex signatures in constant time. The length check comes first because
 * timingSafeEqual throws on unequal lengths; it leaks only the length, which is public.
 */
export function signaturesEqual(expectedHex: string, providedHex: string): boolean {
  if (!HEX_SIGNATURE.test(expectedHex) || !HEX_SIGNATURE.test(providedHex)) return false;
  const expected = Buffer.from(expectedHex, 'hex');
  const provided = Buffer.from(providedHex, 'hex');
  if (expected.length !== provided.length) return false;
  return timingSafeEqual(expected, provided);
}
