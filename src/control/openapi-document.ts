import { readFileSync } from 'node:fs';
import type { OpenApiDocument } from './models/system.js';

/** Where `npm run generate:api` writes the document tsoa generates from the controllers. */
const OPENAPI_FILE = new URL('../../openapi/openapi.json', import.meta.url);

let cached: OpenApiDocument | null = null;

/** The generated OpenAPI document, read once. */
export function openApiDocument(): OpenApiDocument {
  cached ??= JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
  return cached;
}
