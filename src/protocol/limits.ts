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

/** A key is at most 1024 bytes of UTF-8. */
export const MAX_KEY_BYTES = 1024;

/** DeleteObjects names at most 1,000 keys per request. */
export const MAX_DELETE_OBJECTS_KEYS = 1000;

/** S3's bucket names: 3-63 of a-z 0-9 . -, starting and ending with a letter or digit. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function isValidBucketName(name: string): boolean {
  return BUCKET_NAME.test(name);
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
