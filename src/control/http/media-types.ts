/** The media types the control plane answers with, named once for the handlers and the OpenAPI document. */

/** Successful responses with a body. */
export const JSON_MEDIA_TYPE = 'application/json';

/** Every error: an RFC 9457 problem document. */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
