import type { Request, RequestHandler } from 'express';
import { ProblemError } from '../problems.js';

/** Authorization schemes of the storage endpoint: SigV4, and SigV2 for old S3 tools. */
const STORAGE_SCHEMES: readonly string[] = ['aws4-hmac-sha256', 'aws'];
/** Query parameters of a presigned storage URL (SigV4, SigV2). */
const PRESIGNED_PARAMETERS = /^(x-amz-signature|x-amz-credential|awsaccesskeyid)$/i;

function authorizationScheme(request: Request): string | null {
  const header = request.get('authorization')?.trim();
  if (header === undefined || header === '') return null;
  return header.split(/\s/, 1)[0]?.toLowerCase() ?? null;
}

function carriesPresignedSignature(request: Request): boolean {
  const query = request.query as Record<string, unknown>;
  return Object.keys(query).some((name) => PRESIGNED_PARAMETERS.test(name));
}

/**
 * Refuses a storage credential wherever it is sent to the control plane, open endpoints and unknown
 * paths included (an S3 tool pointed here by mistake sends `GET /`): the caller learns from the
 * problem's own code that storage keys carry no control-plane authority, rather than a 404 or a
 * "log in" it would not understand (decisions.md).
 */
export const refuseStorageCredentials: RequestHandler = (request, _response, next) => {
  const scheme = authorizationScheme(request);
  if (scheme !== null && STORAGE_SCHEMES.includes(scheme)) {
    next(
      new ProblemError(
        'storage_credentials_not_accepted',
        'Storage credentials carry no control-plane authority; use them on the storage endpoint. ' +
          'Log in and send Authorization: Bearer <access_token>.',
      ),
    );
    return;
  }
  if (carriesPresignedSignature(request)) {
    next(
      new ProblemError(
        'storage_credentials_not_accepted',
        'Presigned storage URLs do not work on the control plane; log in and send a bearer token.',
      ),
    );
    return;
  }
  next();
};
