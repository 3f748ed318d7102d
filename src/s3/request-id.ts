import { randomBytes } from 'node:crypto';

/**
 * A request id in the shape S3 uses (16 upper-case hex characters). It goes out in the
 * `x-amz-request-id` header of every response and in every error document, and it keys the access
 * log line, so one id ties a client's report to the gateway's log.
 */
export function newRequestId(): string {
  return randomBytes(8).toString('hex').toUpperCase();
}
