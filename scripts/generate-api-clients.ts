import { readFileSync, writeFileSync } from 'node:fs';
import { buildHttpFile, renderPostmanCollection, type OpenApi } from './api-clients.js';

/** Writes openapi/postman_collection.json and openapi/gateway.http from openapi/openapi.json. */
const directory = new URL('../openapi/', import.meta.url);
const doc = JSON.parse(readFileSync(new URL('openapi.json', directory), 'utf8')) as OpenApi;
writeFileSync(new URL('postman_collection.json', directory), renderPostmanCollection(doc));
writeFileSync(new URL('gateway.http', directory), buildHttpFile(doc));
console.log('wrote openapi/postman_collection.json and openapi/gateway.http');
