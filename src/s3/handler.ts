import { randomUUID } from 'node:crypto';
import type { GatewayContext } from '../context.js';
import type { RequestListener } from '../server/listen.js';
import { renderS3Error, S3_ERRORS } from './errors.js';

/**
 * The storage endpoint. Until the verification pipeline lands every request is answered with a
 * NotImplemented S3 error document, so clients see a well-formed refusal rather than a dead port.
 */
export function createS3Listener(_context: GatewayContext): RequestListener {
  return (request, response) => {
    const requestId = randomUUID();
    const definition = S3_ERRORS.OperationNotImplemented;
    request.resume();
    response.writeHead(definition.status, {
      'content-type': 'application/xml',
      'x-amz-request-id': requestId,
    });
    response.end(request.method === 'HEAD' ? undefined : renderS3Error(definition, { requestId }));
  };
}
