/**
 * Streaming checksums S3 accepts for object data (x-amz-checksum-* headers and trailers),
 * plus MD5 for Content-MD5. S3 transmits each as base64 of the big-endian digest.
 */

import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { crc32 } from 'node:zlib';

import { Crc32c } from '@aws-crypto/crc32c';
import type { Crc64Nvme as Crc64NvmeClass } from '@aws-sdk/crc64-nvme';

import type { S3ErrorKey } from '../protocol/errors.js';

export const CHECKSUM_ALGORITHMS = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];
/** Everything a body can be checked against: the flexible checksums and Content-MD5. */
export type DigestAlgorithm = ChecksumAlgorithm | 'MD5';

export interface StreamingDigest {
  update(chunk: Uint8Array): void;
  /** Async because the CRC64-NVME implementation only offers an async digest. */
  digestBase64(): Promise<string>;
}

/** Digest sizes in bytes; a checksum value of any other length is malformed. */
const DIGEST_BYTES: Readonly<Record<DigestAlgorithm, number>> = {
  CRC32: 4,
  CRC32C: 4,
  CRC64NVME: 8,
  SHA1: 20,
  SHA256: 32,
  MD5: 16,
};

function uint32Base64(value: number): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes.toString('base64');
}

class Crc32Digest implements StreamingDigest {
  private value = 0;
  update(chunk: Uint8Array): void {
    this.value = crc32(chunk, this.value);
  }
  async digestBase64(): Promise<string> {
    return uint32Base64(this.value);
  }
}

class Crc32cDigest implements StreamingDigest {
  private readonly crc = new Crc32c();
  update(chunk: Uint8Array): void {
    this.crc.update(chunk);
  }
  async digestBase64(): Promise<string> {
    return uint32Base64(this.crc.digest());
  }
}

const require = createRequire(import.meta.url);
let crc64Nvme: typeof Crc64NvmeClass | undefined;

/**
 * Loaded at the first CRC64-NVME checksum: its package brings a large part of the AWS SDK's core
 * (about 2 MiB of heap and 12 MiB of RSS per storage worker) that most gateways never need.
 */
function loadCrc64Nvme(): typeof Crc64NvmeClass {
  crc64Nvme ??= (require('@aws-sdk/crc64-nvme') as { Crc64Nvme: typeof Crc64NvmeClass }).Crc64Nvme;
  return crc64Nvme;
}

class Crc64NvmeDigest implements StreamingDigest {
  private readonly crc = new (loadCrc64Nvme())();
  update(chunk: Uint8Array): void {
    this.crc.update(chunk);
  }
  async digestBase64(): Promise<string> {
    return Buffer.from(await this.crc.digest()).toString('base64');
  }
}

class NodeHashDigest implements StreamingDigest {
  private readonly hash;
  constructor(algorithm: 'sha1' | 'sha256' | 'md5') {
    this.hash = createHash(algorithm);
  }
  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
  }
  async digestBase64(): Promise<string> {
    return this.hash.digest('base64');
  }
}

export function createDigest(algorithm: DigestAlgorithm): StreamingDigest {
  switch (algorithm) {
    case 'CRC32':
      return new Crc32Digest();
    case 'CRC32C':
      return new Crc32cDigest();
    case 'CRC64NVME':
      return new Crc64NvmeDigest();
    case 'SHA1':
      return new NodeHashDigest('sha1');
    case 'SHA256':
      return new NodeHashDigest('sha256');
    case 'MD5':
      return new NodeHashDigest('md5');
  }
}

/** The header (and trailer) carrying an algorithm's value: `x-amz-checksum-crc32`. */
export function checksumHeaderName(algorithm: ChecksumAlgorithm): string {
  return `x-amz-checksum-${algorithm.toLowerCase()}`;
}

/** `CRC32`/`crc32` (x-amz-checksum-algorithm, x-amz-sdk-checksum-algorithm) to an algorithm. */
export function checksumAlgorithmFromName(name: string): ChecksumAlgorithm | undefined {
  const upper = name.trim().toUpperCase();
  return CHECKSUM_ALGORITHMS.find((algorithm) => algorithm === upper);
}

const CHECKSUM_HEADER_PREFIX = 'x-amz-checksum-';
/** x-amz-checksum-* headers that describe a checksum rather than carry one. */
const CHECKSUM_META_HEADERS: readonly string[] = [
  'x-amz-checksum-algorithm',
  'x-amz-checksum-type',
  'x-amz-checksum-mode',
];

/** True for a header (or trailer) name that carries a checksum value, known algorithm or not. */
export function isChecksumValueHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith(CHECKSUM_HEADER_PREFIX) && !CHECKSUM_META_HEADERS.includes(lower);
}

/**
 * `x-amz-checksum-crc32` (a value header, or an x-amz-trailer entry) to its algorithm;
 * undefined for names that are not value headers or name an algorithm we cannot compute
 * (newer SDKs know xxhash and sha512).
 */
export function checksumAlgorithmFromHeader(name: string): ChecksumAlgorithm | undefined {
  const lower = name.trim().toLowerCase();
  if (!isChecksumValueHeader(lower)) return undefined;
  return CHECKSUM_ALGORITHMS.find((algorithm) => checksumHeaderName(algorithm) === lower);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Canonical base64 of exactly the digest length of `algorithm`. */
export function isWellFormedDigest(algorithm: DigestAlgorithm, base64: string): boolean {
  if (!BASE64.test(base64)) return false;
  const bytes = Buffer.from(base64, 'base64');
  // Re-encoding rejects non-canonical padding bits, so one digest has one spelling.
  return bytes.length === DIGEST_BYTES[algorithm] && bytes.toString('base64') === base64;
}

/** `InvalidDigest` when a checksum or Content-MD5 value cannot be a digest of that algorithm. */
export function validateDigestValue(algorithm: DigestAlgorithm, base64: string): S3ErrorKey | undefined {
  return isWellFormedDigest(algorithm, base64) ? undefined : 'InvalidDigest';
}

/** Base64 digest of a whole buffer; handy for tests and small bodies. */
export async function digestOf(algorithm: DigestAlgorithm, data: Uint8Array): Promise<string> {
  const digest = createDigest(algorithm);
  digest.update(data);
  return digest.digestBase64();
}
