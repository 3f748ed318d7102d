import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GatewayContext } from '../context.js';

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(response: Response): string | undefined {
  return response.locals.requestId as string | undefined;
}

/**
 * Gives every request an id (the caller's `x-request-id` when it is sane, else a new one) and
 * answers with it; counts, times and logs the request when it finishes. The log line names the route
 * and status only: bodies, query strings and headers (tokens, cookies) never reach the log.
 */
export function requestContext(context: GatewayContext): RequestHandler {
  const { metrics, logger } = context;
  return (request: Request, response: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const given = request.get('x-request-id');
    const requestId = given !== undefined && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
    response.locals.requestId = requestId;
    response.set('x-request-id', requestId);
    response.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The route pattern, never the path: label values must stay a closed set.
      const route = (request.route as { path?: string } | undefined)?.path;
      const operation = route === undefined ? 'unmatched' : `${request.method} ${route}`;
      metrics.controlRequests.inc({ operation, status: String(response.statusCode) });
      metrics.controlDuration.observe({ operation }, seconds);
      logger.info(
        {
          requestId,
          method: request.method,
          path: request.path,
          status: response.statusCode,
          durationMs: Math.round(seconds * 1000),
          userId: (request as Request & { user?: { userId: string } }).user?.userId,
        },
        'control request',
      );
    });
    next();
  };
}
