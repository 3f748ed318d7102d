import { readFileSync, writeFileSync } from 'node:fs';
import { buildHttpFile, renderPostmanCollection, type OpenApi } from './api-clients.js';
import { finishOpenApi } from './openapi-finish.js';

/**
 * Finishes openapi/openapi.json as tsoa wrote it (openapi-finish.ts: 3.0-conformant nullables,
 * problem examples), then writes openapi/postman_collection.json and openapi/gateway.http from it.
 */
const directory = new URL('../openapi/', import.meta.url);
const specFile = new URL('openapi.json', directory);
const doc = finishOpenApi(JSON.parse(readFileSync(specFile, 'utf8')) as OpenApi);
// Indented as tsoa writes it, so a regeneration's diff shows only what changed.
writeFileSync(specFile, `${JSON.stringify(doc, null, '\t')}\n`);
writeFileSync(new URL('postman_collection.json', directory), renderPostmanCollection(doc));
writeFileSync(new URL('gateway.http', directory), buildHttpFile(doc));
console.log('finished openapi/openapi.json; wrote openapi/postman_collection.json and openapi/gateway.http');
