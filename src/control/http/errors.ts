import { ValidateError, type FieldErrors } from '@tsoa/runtime';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { BackendError } from '../../backend/object-store.js';
import { isDatabaseUnavailable } from '../../store/unavailable.js';
import type { Logger } from '../../observability/logger.js';
import {
  backendUnavailable,
  databaseUnavailable,
  ProblemError,
  validationProblem,
  type FieldError,
} from '../problems.js';
import { requestIdOf } from './request-context.js';
import { PROBLEM_MEDIA_TYPE } from './media-types.js';

/**
 * tsoa names fields by parameter: "body.scope.buckets", "body.rules.$0.allowedOrigins", "limit".
 * Clients know the JSON they sent, so name them as paths into it: "scope.buckets",
 * "rules[0].allowedOrigins", "limit".
 */
export function fieldName(tsoaName: string): string {
  const name = tsoaName
    .replace(/^body\./, '')
    .replace(/\.\$(\d+)/g, '[$1]')
    .replace(/^\$(\d+)/, '[$1]');
  return name === '' ? 'body' : name;
}

const UNION_MISMATCH = 'Could not match the union against any of the items.';
const ONE_OF = /^should be one of the following; \[(.*)\]$/;

/**
 * tsoa reports a value outside a string-literal union as a union mismatch with one issue per member;
 * say instead which values are allowed.
 */
export function readableMessage(message: string): string {
  if (!message.startsWith(UNION_MISMATCH)) return message;
  const issuesAt = message.indexOf('[');
  try {
    const issues = JSON.parse(message.slice(issuesAt)) as Record<string, { message: string }>[];
    const allowed = issues.flatMap((issue) =>
      Object.values(issue).map((detail) => ONE_OF.exec(detail.message)?.[1] ?? null),
    );
    if (allowed.length > 0 && allowed.every((value) => value !== null)) {
      return `must be one of ${allowed.join(', ')}`;
    }
  } catch {
    // Not the shape expected: fall through to the generic wording.
  }
  return 'does not match any of the allowed forms';
}

export function fieldErrors(fields: FieldErrors): FieldError[] {
  return Object.entries(fields).map(([name, { message }]) => ({
    field: fieldName(name),
    message: readableMessage(message),
  }));
}

/** What body-parser (http-errors) attaches to the errors it raises. */
interface BodyParserError {
  type?: unknown;
  status?: unknown;
  expose?: unknown;
  message?: unknown;
}

/** Body-parser failures carry a `type`; everything else unknown is an internal error. */
function asProblem(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error instanceof ValidateError) return validationProblem(fieldErrors(error.fields));
  if (error instanceof BackendError) return backendUnavailable();
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  const { type, status, expose, message } = error as BodyParserError;
  if (type === 'entity.parse.failed') return new ProblemError('malformed_json');
  if (type === 'entity.too.large') return new ProblemError('payload_too_large');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ProblemError('unsupported_media_type');
  }
  // The body could not be read at all: it ended before its Content-Length, or it is not compressed
  // the way its Content-Encoding says (zlib's errors carry no `type`, only the client's 400).
  if (expose === true && status === 400) {
    return new ProblemError('malformed_json', `The request body could not be read: ${String(message)}.`);
  }
  return new ProblemError('internal_error', 'The request failed; the request id identifies it in the log.');
}

function sendProblem(response: Response, problem: ProblemError): void {
  response
    .status(problem.status)
    .set(problem.headers)
    .type(PROBLEM_MEDIA_TYPE)
    .json(problem.toDocument(requestIdOf(response)));
}

/** The one place errors become responses: RFC 9457 problem+json with a stable `code`. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _request: Request, response: Response, next) => {
    if (response.headersSent) {
      next(error);
      return;
    }
    const problem = asProblem(error);
    if (problem.status >= 500) {
      logger.error({ err: error, requestId: requestIdOf(response) }, 'control request failed');
    }
    sendProblem(response, problem);
  };
}

export const notFound: RequestHandler = (request, response) => {
  sendProblem(response, new ProblemError('not_found', `No endpoint ${request.method} ${request.path}.`));
};

/** Write requests with a body must send JSON; anything else would reach validation as "no body". */
export const requireJsonBody: RequestHandler = (request, _response, next) => {
  const hasBody =
    request.get('transfer-encoding') !== undefined || Number(request.get('content-length') ?? '0') > 0;
  if (hasBody && !request.is(['application/json', 'application/*+json'])) {
    next(new ProblemError('unsupported_media_type', 'Send the body as Content-Type: application/json.'));
    return;
  }
  next();
};
