import express from 'express';
import type { GatewayContext } from '../context.js';

/** The control plane's express application. */
export function createControlApp(_context: GatewayContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use((_request, response) => {
    response
      .status(404)
      .type('application/problem+json')
      .json({
        type: 'about:blank',
        title: 'Not Found',
        status: 404,
        detail: 'No such endpoint.',
        code: 'not_found',
      });
  });
  return app;
}
