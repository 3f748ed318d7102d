/**
 * Every number and name rule the S3 protocol and the service specification fix, once. Both planes
 * and the SigV4 code read them from here, so a limit can never mean two things.
 */

/** A presigned URL lives at most seven days (service-spec §5, §8). */
export const MAX_PRESIGN_SECONDS = 604_800;

/** The signing clock may differ from the service clock by at most fifteen minutes (service-spec §5, §8). */
export const MAX_CLOCK_SKEW_SECONDS = 900;

/** Every multipart part but the last must hold at least 5 MiB (service-spec §4, §8). */
export const MIN_PART_BYTES = 5 * 1024 * 1024;

/** S3 numbers parts 1 to 10,000. */
export const MAX_PART_NUMBER = 10_000;

/** A part number as S3 writes one: a whole number from 1 to 10,000, in plain decimal. */
export function isValidPartNumber(text: string): boolean {
  if (!/^[1-9][0-9]{0,4}$/.test(text)) return false;
  return Number(text) <= MAX_PART_NUMBER;
}

/** A key is at most 1024 bytes of UTF-8. */
export const MAX_KEY_BYTES = 1024;

/** DeleteObjects names at most 1,000 keys per request. */
export const MAX_DELETE_OBJECTS_KEYS = 1000;

/** S3's bucket names: 3-63 of a-z 0-9 . -, starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Whether a request may address a bucket by this name: the loose shape every S3 store accepts, so
 * that a bucket made in the store under an older rule still answers. A new bucket must also pass
 * {@link bucketNameProblem}.
 */
export function isAddressableBucketName(name: string): boolean {
  return BUCKET_NAME.test(name);
}

const IP_ADDRESS = /^\d{1,3}(\.\d{1,3}){3}$/;
const RESERVED_BUCKET_PREFIXES = ['xn--', 'sthree-', 'amzn-s3-demo-'];
const RESERVED_BUCKET_SUFFIXES = ['-s3alias', '--ol-s3', '.mrap', '--x-s3', '--table-s3'];

/**
 * Why a new bucket may not have this name (AWS's rules for general-purpose buckets), or null.
 * Names are global across organisations and appear as host names in virtual-hosted addressing.
 */
export function bucketNameProblem(name: string): string | null {
  if (name.length < 3 || name.length > 63) return 'must be 3 to 63 characters long';
  if (!/^[a-z0-9.-]+$/.test(name)) return 'may hold only lower-case letters, digits, dots and hyphens';
  if (!/^[a-z0-9]/.test(name) || !/[a-z0-9]$/.test(name)) return 'must begin and end with a letter or digit';
  if (name.includes('..')) return 'must not hold two dots in a row';
  if (name.includes('.-') || name.includes('-.')) return 'must not hold a dot next to a hyphen';
  if (IP_ADDRESS.test(name)) return 'must not look like an IP address';
  const prefix = RESERVED_BUCKET_PREFIXES.find((reserved) => name.startsWith(reserved));
  if (prefix !== undefined) return `must not begin with the reserved prefix "${prefix}"`;
  const suffix = RESERVED_BUCKET_SUFFIXES.find((reserved) => name.endsWith(reserved));
  if (suffix !== undefined) return `must not end with the reserved suffix "${suffix}"`;
  return null;
}

/** True when a `/`-separated key has a `.` or `..` segment (decoded, so `%2E` counts). */
export function hasDotSegment(decodedKey: string): boolean {
  if (!decodedKey.includes('.')) return false;
  return decodedKey.split('/').some((segment) => segment === '.' || segment === '..');
}

/**
 * True when the key holds no NUL (U+0000): XML 1.0 cannot carry that character, so no listing,
 * DeleteObjects or error document could ever name such an object.
 */
export function isKeyCharacterSetValid(key: string): boolean {
  return !key.includes('\u0000');
}

/** True when the key fits S3's length limit. */
export function isKeyLengthValid(key: string): boolean {
  // Every UTF-16 unit is at most 3 bytes of UTF-8, so short keys need no count.
  return key.length * 3 <= MAX_KEY_BYTES || Buffer.byteLength(key, 'utf8') <= MAX_KEY_BYTES;
}

/**
 * Why a key cannot name an object through the gateway, or null: the storage endpoint refuses the
 * same keys (KeyTooLong, DotSegmentKey, a NUL at addressing).
 */
export function objectKeyProblem(key: string): string | null {
  if (key.length === 0) return 'must not be empty';
  if (!isKeyLengthValid(key)) return `must be at most ${MAX_KEY_BYTES} bytes`;
  if (!isKeyCharacterSetValid(key)) return 'must not contain a NUL character';
  if (hasDotSegment(key)) return 'must not contain "." or ".." path segments';
  return null;
}
