import type { RequestHandler } from 'express';

/** Where app.ts serves swagger-ui: the page itself, so a browser needs no second redirect. */
const DOCS_PATH = '/docs/';

/**
 * `GET /` is where people land first and there is nothing to manage there. A browser (it asks for
 * HTML) is sent on to the interactive docs; curl and scripts get a short JSON index saying where
 * the docs, the API and its OpenAPI document are, rather than a bare 404 or an empty redirect.
 */
export const controlRoot: RequestHandler = (request, response) => {
  if (request.accepts(['json', 'html']) === 'html') {
    response.redirect(302, DOCS_PATH);
    return;
  }
  response.json({
    service: 'S3 gateway control plane',
    message:
      `Interactive API docs: ${DOCS_PATH} (open it in a browser). The JSON API is under /v1: ` +
      'log in with POST /v1/auth/login, then send Authorization: Bearer <access_token>.',
    docs: DOCS_PATH,
    api: '/v1',
    openapi: '/v1/openapi.json',
    login: 'POST /v1/auth/login',
  });
};
