/**
 * SigV4 signing keys and signature comparison.
 *
 * Deriving a key costs four HMACs, and node:crypto prepares a raw key on every createHmac call,
 * which costs several times the HMAC itself on a short string-to-sign. So derived keys are held as
 * KeyObjects, attached to the credential object they belong to: they live exactly as long as the
 * caller keeps that credential (a cache entry), and no separate table of secrets or of their
 * fingerprints exists.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { SigningScope } from './canonical.js';
import { SCOPE_TERMINATOR } from './constants.js';

function hmac(key: string | Uint8Array, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** kSecret → kDate → kRegion → kService → kSigning, as SigV4 defines it. */
export function deriveSigningKey(secret: string, scope: SigningScope): Buffer {
  const dateKey = hmac(`AWS4${secret}`, scope.date);
  const regionKey = hmac(dateKey, scope.region);
  const serviceKey = hmac(regionKey, scope.service);
  return hmac(serviceKey, SCOPE_TERMINATOR);
}

/** The hex signature of a string-to-sign. */
export function signStringToSign(signingKey: KeyObject | Uint8Array, stringToSign: string): string {
  return createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
}

interface HeldKey {
  readonly secret: string;
  readonly key: KeyObject;
}

/** The key a slot used last, with what it was derived for: most requests of a credential sign alike. */
interface RecentKey extends HeldKey {
  readonly scope: SigningScope;
}

interface CredentialKeys {
  /** Per secret slot and scope (`slot/date/region/service`). */
  readonly byScope: Map<string, HeldKey>;
  /** Per secret slot, the key used last: found without building the scope's name. */
  readonly recent: (RecentKey | undefined)[];
}

/** Scopes change daily; a credential object outliving a few days of them is dropped and rebuilt. */
const MAX_KEYS_PER_CREDENTIAL = 8;

function sameScope(left: SigningScope, right: SigningScope): boolean {
  return left.date === right.date && left.region === right.region && left.service === right.service;
}

/** Derived keys per credential object, per secret slot and scope. */
export class SigningKeyCache {
  readonly #keys = new WeakMap<object, CredentialKeys>();

  /**
   * The signing key of `secret` (the credential's `slot`-th usable secret) for `scope`. A slot
   * whose secret changed (a rotation) is derived again.
   */
  signingKey(credential: object, slot: number, secret: string, scope: SigningScope): KeyObject {
    let keys = this.#keys.get(credential);
    if (keys === undefined) {
      keys = { byScope: new Map(), recent: [] };
      this.#keys.set(credential, keys);
    }
    const recent = keys.recent[slot];
    if (recent !== undefined && recent.secret === secret && sameScope(recent.scope, scope)) return recent.key;
    const id = `${slot}/${scope.date}/${scope.region}/${scope.service}`;
    let held = keys.byScope.get(id);
    if (held === undefined || held.secret !== secret) {
      if (keys.byScope.size >= MAX_KEYS_PER_CREDENTIAL) keys.byScope.clear();
      held = { secret, key: createSecretKey(deriveSigningKey(secret, scope)) };
      keys.byScope.set(id, held);
    }
    keys.recent[slot] = {
      ...held,
      scope: { date: scope.date, region: scope.region, service: scope.service },
    };
    return held.key;
  }
}

/** 64 lower- or upper-case hex digits. */
function isHexSignature(text: string): boolean {
  if (text.length !== 64) return false;
  for (let index = 0; index < 64; index += 1) {
    const code = text.charCodeAt(index) | 0x20;
    if (!((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66))) return false;
  }
  return true;
}

/**
 * Compares two hex signatures in constant time. Shapes are checked first because timingSafeEqual
 * throws on unequal lengths; that leaks only the length, which is public.
 */
export function signaturesEqual(expectedHex: string, providedHex: string): boolean {
  if (!isHexSignature(expectedHex) || !isHexSignature(providedHex)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(providedHex, 'hex'));
}
