import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHttpFile, renderPostmanCollection, type OpenApi } from '../../../scripts/api-clients.js';
import { finishOpenApi } from '../../../scripts/openapi-finish.js';

const root = path.resolve(import.meta.dirname, '../../..');
const read = (relative: string) => readFileSync(path.join(root, relative), 'utf8');

/**
 * The committed document, routes and clients must be what `npm run generate:api` makes from the code
 * now: a controller change without regenerating fails here.
 */
describe('generated API artefacts', () => {
  let scratch: string;
  let generated: { spec: string; routes: string };

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'gw-tsoa-'));
    const config = JSON.parse(read('tsoa.json'));
    config.spec.outputDirectory = scratch;
    config.routes.routesDir = scratch;
    const configFile = path.join(scratch, 'tsoa.json');
    writeFileSync(configFile, JSON.stringify(config));
    await promisify(execFile)(
      path.join(root, 'node_modules/.bin/tsoa'),
      ['spec-and-routes', '-c', configFile],
      {
        cwd: root,
      },
    );
    // Imports in the routes are relative to where they are written; compare them as if in place.
    const fromScratch = `./${path.relative(scratch, path.join(root, 'src/control'))}/`;
    generated = {
      spec: readFileSync(path.join(scratch, 'openapi.json'), 'utf8'),
      routes: readFileSync(path.join(scratch, 'routes.ts'), 'utf8').replaceAll(fromScratch, './../'),
    };
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('openapi/openapi.json is up to date (run npm run generate:api)', () => {
    expect(JSON.parse(read('openapi/openapi.json'))).toEqual(finishOpenApi(JSON.parse(generated.spec)));
  });

  it('src/control/generated/routes.ts is up to date (run npm run generate:api)', () => {
    expect(read('src/control/generated/routes.ts')).toBe(generated.routes);
  });

  it('the Postman collection and the .http file are up to date (run npm run generate:api)', () => {
    const doc = JSON.parse(read('openapi/openapi.json')) as OpenApi;
    expect(read('openapi/postman_collection.json')).toBe(renderPostmanCollection(doc));
    expect(read('openapi/gateway.http')).toBe(buildHttpFile(doc));
  });
});
