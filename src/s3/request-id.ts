import { randomBytes } from 'node:crypto';

/**
 * Request ids in the shape S3 uses (16 upper-case hex characters). They go out in the
 * `x-amz-request-id` header of every response and in every error document, and key the access log
 * line, so one id ties a client's report to the gateway's log. Unique, not secret: a random prefix
 * per process (so the workers of one gateway and its other instances do not collide) and a counter.
 */
const PREFIX = randomBytes(4).toString('hex').toUpperCase();
let counter = randomBytes(4).readUInt32BE(0);

export function newRequestId(): string {
  counter = (counter + 1) >>> 0;
  return PREFIX + counter.toString(16).toUpperCase().padStart(8, '0');
}
