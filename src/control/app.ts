import express from 'express';
import swaggerUi from 'swagger-ui-express';
import type { GatewayContext } from './context.js';
import { refuseStorageCredentials } from './auth/storage-credentials.js';
import { createDependencies } from './dependencies.js';
import { RegisterRoutes } from './generated/routes.js';
import { errorHandler, notFound, requireJsonBody } from './http/errors.js';
import { refuseUnrepresentableInput } from './http/malformed-input.js';
import { controlRoot } from './http/root.js';
import { requestContext } from './http/request-context.js';
import { fixNestedArrayFieldPaths, refuseCompositeEnumValues } from './http/tsoa-field-paths.js';
import { openApiDocument } from './openapi-document.js';
import { attachRuntime } from './runtime-locals.js';
import { createServices } from './services/index.js';

const MAX_BODY = '1mb';

/** The control plane's express application: /v1 (generated tsoa routes) and /docs. */
export function createControlApp(context: GatewayContext): express.Express {
  fixNestedArrayFieldPaths();
  refuseCompositeEnumValues();
  const deps = createDependencies(context);
  const app = express();
  app.disable('x-powered-by');
  const trustedProxies = context.config.control.trustedProxies;
  app.set('trust proxy', trustedProxies.length > 0 ? trustedProxies : false);
  attachRuntime(app, { deps, services: createServices(deps) });

  app.use(requestContext(context));
  app.use(refuseStorageCredentials);
  app.use(
    '/v1',
    requireJsonBody,
    express.json({ limit: MAX_BODY, type: ['application/json', 'application/*+json'] }),
  );
  // Every path, not only /v1: after the body is parsed, before any route decodes a parameter.
  app.use(refuseUnrepresentableInput);
  RegisterRoutes(app);
  app.get('/', controlRoot);
  app.use(
    '/docs',
    swaggerUi.serve,
    swaggerUi.setup(openApiDocument(), { customSiteTitle: 'S3 gateway API' }),
  );
  app.use(notFound);
  app.use(errorHandler(context.logger));
  return app;
}
