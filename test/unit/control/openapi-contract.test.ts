import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operationsOf, type OpenApi } from '../../../scripts/api-clients.js';
import { PROBLEMS, type ProblemCode } from '../../../src/control/problems.js';

const doc = JSON.parse(
  readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
) as OpenApi;

/** control-plane.md, table by table. */
const CONTRACT: Record<string, string[]> = {
  Authentication: [
    'POST /v1/auth/login',
    'POST /v1/auth/refresh',
    'POST /v1/auth/logout',
    'POST /v1/auth/invitations/accept',
    'POST /v1/auth/password-reset',
  ],
  'Your account': [
    'GET /v1/me',
    'PATCH /v1/me',
    'PUT /v1/me/password',
    'GET /v1/me/organisation',
    'GET /v1/me/sessions',
    'DELETE /v1/me/sessions/{sessionId}',
    'DELETE /v1/me/sessions',
  ],
  Organisation: [
    'GET /v1/organisation',
    'PATCH /v1/organisation',
    'GET /v1/organisation/members',
    'POST /v1/organisation/members',
    'PATCH /v1/organisation/members/{userId}',
    'DELETE /v1/organisation/members/{userId}',
    'POST /v1/organisation/members/{userId}/password-reset',
    'GET /v1/organisation/usage',
    'GET /v1/organisation/audit-log',
    'GET /v1/organisations',
    'POST /v1/organisations',
    'POST /v1/organisations/{orgId}/suspend',
    'POST /v1/organisations/{orgId}/reinstate',
  ],
  Credentials: [
    'GET /v1/credentials',
    'POST /v1/credentials',
    'GET /v1/credentials/{accessKeyId}',
    'PATCH /v1/credentials/{accessKeyId}',
    'PUT /v1/credentials/{accessKeyId}/scope',
    'POST /v1/credentials/{accessKeyId}/rotate',
    'DELETE /v1/credentials/{accessKeyId}',
  ],
  'Buckets, objects & CORS': [
    'GET /v1/buckets',
    'POST /v1/buckets',
    'GET /v1/buckets/{bucket}',
    'PATCH /v1/buckets/{bucket}',
    'DELETE /v1/buckets/{bucket}',
    'GET /v1/buckets/{bucket}/cors',
    'PUT /v1/buckets/{bucket}/cors',
    'DELETE /v1/buckets/{bucket}/cors',
    'GET /v1/buckets/{bucket}/objects',
    'POST /v1/buckets/{bucket}/objects/delete',
    'POST /v1/buckets/{bucket}/presign',
  ],
  System: ['GET /v1/health', 'GET /v1/version', 'GET /v1/openapi.json'],
};

const UNAUTHENTICATED = new Set([
  ...CONTRACT.Authentication!,
  'GET /v1/health',
  'GET /v1/version',
  'GET /v1/openapi.json',
]);

interface RawResponse {
  content?: Record<string, unknown>;
  headers?: Record<string, { required?: boolean; schema?: { type?: string } }>;
}

interface RawOperation {
  tags?: string[];
  security?: unknown[];
  responses?: Record<string, RawResponse>;
}

function rawOperations(): { id: string; operation: RawOperation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      id: `${method.toUpperCase()} ${path}`,
      operation: operation as RawOperation,
    })),
  );
}

describe('the OpenAPI document', () => {
  it('lists exactly the 46 operations of control-plane.md and nothing else', () => {
    const expected = Object.values(CONTRACT).flat();
    expect(expected).toHaveLength(46);
    expect(
      rawOperations()
        .map(({ id }) => id)
        .sort(),
    ).toEqual([...expected].sort());
    expect(Object.keys(doc.paths).every((path) => path.startsWith('/v1/'))).toBe(true);
  });

  it('tags each operation with exactly one of the six group names, as the contract groups them', () => {
    expect((doc.tags ?? []).map((tag) => tag.name)).toEqual(Object.keys(CONTRACT));
    for (const { id, operation } of rawOperations()) {
      expect(operation.tags, id).toHaveLength(1);
      expect(CONTRACT[operation.tags?.[0] as string], id).toContain(id);
    }
  });

  it('asks for the bearer token exactly where control-plane.md does', () => {
    for (const { id, operation } of rawOperations()) {
      expect((operation.security ?? []).length > 0, id).toBe(!UNAUTHENTICATED.has(id));
    }
  });

  it('documents problem+json for errors and uses snake_case only in the token response', () => {
    const schemas = doc.components?.schemas ?? {};
    expect(Object.keys(schemas.ProblemDocument?.properties ?? {})).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'code', 'errors']),
    );
    for (const [name, schema] of Object.entries(schemas)) {
      for (const property of Object.keys(schema.properties ?? {})) {
        if (name === 'TokenResponse') continue;
        expect(property, `${name}.${property}`).not.toContain('_');
      }
    }
    expect(Object.keys(schemas.TokenResponse?.properties ?? {}).sort()).toEqual(
      ['access_token', 'expires_in', 'token_type', 'user'].sort(),
    );
  });
});

describe('the media types and headers the OpenAPI document declares', () => {
  it('declares every error as application/problem+json and every success body as application/json', () => {
    let errors = 0;
    for (const { id, operation } of rawOperations()) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const types = Object.keys(response.content ?? {});
        if (id === 'GET /v1/health' && status === '503') {
          // Not ready is a health report, not a problem: monitors read the failing check from it.
          expect(types, `${id} ${status}`).toEqual(['application/json']);
        } else if (Number(status) >= 400) {
          expect(types, `${id} ${status}`).toEqual(['application/problem+json']);
          errors += 1;
        } else if (status !== '204') {
          expect(types, `${id} ${status}`).toEqual(['application/json']);
        }
      }
    }
    // Every operation behind a bearer token documents at least its 401.
    expect(errors).toBeGreaterThan(46);
  });

  it('names Retry-After on the rate-limited login and Set-Cookie wherever the refresh cookie changes', () => {
    const responses = (id: string) =>
      rawOperations().find((operation) => operation.id === id)?.operation.responses ?? {};
    expect(responses('POST /v1/auth/login')['429']?.headers?.['Retry-After']?.schema?.type).toBe('string');
    for (const [id, status] of [
      ['POST /v1/auth/login', '200'],
      ['POST /v1/auth/refresh', '200'],
      ['POST /v1/auth/refresh', '401'],
      ['POST /v1/auth/invitations/accept', '200'],
      ['POST /v1/auth/logout', '204'],
    ] as const) {
      expect(Object.keys(responses(id)[status]?.headers ?? {}), `${id} ${status}`).toEqual(['Set-Cookie']);
    }
  });
});

describe('the examples of error responses', () => {
  interface ProblemExample {
    $ref?: string;
    value: { type: string; title: string; status: number; code: string; errors?: unknown[] };
  }
  const shared = (doc.components as { examples?: Record<string, ProblemExample> }).examples ?? {};
  /** A response's examples, those in components.examples looked up. */
  const examplesOf = (response: RawResponse): Record<string, ProblemExample> => {
    const media = response.content?.['application/problem+json'] as
      { examples?: Record<string, ProblemExample> } | undefined;
    return Object.fromEntries(
      Object.entries(media?.examples ?? {}).map(([name, example]) => [
        name,
        example.$ref === undefined
          ? example
          : (shared[example.$ref.replace('#/components/examples/', '')] as ProblemExample),
      ]),
    );
  };

  it('give every problem response one example per code its description names, as the service answers it', () => {
    let checked = 0;
    for (const { id, operation } of rawOperations()) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (response.content?.['application/problem+json'] === undefined) continue;
        const examples = Object.entries(examplesOf(response));
        expect(examples.length, `${id} ${status}`).toBeGreaterThan(0);
        for (const [name, { value }] of examples) {
          const code = name as ProblemCode;
          expect(value, `${id} ${status} ${name}`).toMatchObject({
            type: `urn:s3-gateway:problem:${code}`,
            title: PROBLEMS[code].title,
            status: Number(status),
            code,
          });
          expect((response as { description?: string }).description, `${id} ${status}`).toContain(code);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("shows login's 401 and 429 as the problems login answers with, and its 400 naming a field it has", () => {
    const login = rawOperations().find(({ id }) => id === 'POST /v1/auth/login')?.operation.responses ?? {};
    expect(Object.keys(examplesOf(login['401'] as RawResponse))).toEqual(['invalid_credentials']);
    expect(Object.keys(examplesOf(login['429'] as RawResponse))).toEqual(['rate_limited']);
    const invalid = examplesOf(login['400'] as RawResponse).validation_failed?.value;
    expect(invalid?.errors).toEqual([{ field: 'email', message: "'email' is required" }]);
  });

  it('lists every way a bearer token is refused under 401', () => {
    const me = rawOperations().find(({ id }) => id === 'GET /v1/me')?.operation.responses ?? {};
    expect(Object.keys(examplesOf(me['401'] as RawResponse)).sort()).toEqual([
      'session_ended',
      'storage_credentials_not_accepted',
      'token_expired',
      'token_invalid',
      'unauthenticated',
    ]);
  });

  it('declares 503 database_unavailable with Retry-After on every operation that reads the database', () => {
    /** These answer without the database: the version and this document (health reports it instead). */
    const withoutDatabase = new Set(['GET /v1/health', 'GET /v1/version', 'GET /v1/openapi.json']);
    let declared = 0;
    for (const { id, operation } of rawOperations()) {
      const unavailable = operation.responses?.['503'];
      if (withoutDatabase.has(id)) {
        if (id !== 'GET /v1/health') expect(unavailable, id).toBeUndefined();
        continue;
      }
      expect(Object.keys(examplesOf(unavailable as RawResponse)), id).toEqual(['database_unavailable']);
      expect(examplesOf(unavailable as RawResponse).database_unavailable?.value, id).toMatchObject({
        status: 503,
        code: 'database_unavailable',
        title: 'The database did not answer',
        detail: 'The gateway cannot reach its database. Retry after a few seconds.',
      });
      expect(unavailable?.headers?.['Retry-After'], id).toMatchObject({
        required: true,
        schema: { type: 'string' },
      });
      declared += 1;
    }
    expect(declared).toBe(43);
  });

  it('declares 502 backend_unavailable on exactly the operations that call the object store', () => {
    const callingTheStore = [
      'DELETE /v1/buckets/{bucket}',
      'GET /v1/buckets/{bucket}/objects',
      'PATCH /v1/buckets/{bucket}',
      'PATCH /v1/organisation',
      'POST /v1/buckets',
      'POST /v1/buckets/{bucket}/objects/delete',
    ];
    const declaring = rawOperations()
      .filter(({ operation }) => operation.responses?.['502'] !== undefined)
      .map(({ id }) => id)
      .sort();
    expect(declaring).toEqual(callingTheStore);
    for (const { id, operation } of rawOperations()) {
      const unavailable = operation.responses?.['502'];
      if (unavailable === undefined) continue;
      expect(examplesOf(unavailable as RawResponse).backend_unavailable?.value, id).toMatchObject({
        status: 502,
        code: 'backend_unavailable',
        detail: 'The object store did not complete the operation.',
      });
    }
  });

  it("shows /v1/health's 503 as a report naming the failing check", () => {
    const health = rawOperations().find(({ id }) => id === 'GET /v1/health')?.operation.responses ?? {};
    const example = (
      health['503']?.content?.['application/json'] as { examples?: Record<string, { value: unknown }> }
    )?.examples;
    expect(Object.values(example ?? {})[0]?.value).toMatchObject({
      status: 'unavailable',
      checks: { backend: { status: 'failing' } },
    });
  });
});

describe('the published clients', () => {
  const postman = JSON.parse(
    readFileSync(new URL('../../../openapi/postman_collection.json', import.meta.url), 'utf8'),
  ) as { item: { name: string; item: { request: { method: string; url: { raw: string } } }[] }[] };
  const http = readFileSync(new URL('../../../openapi/gateway.http', import.meta.url), 'utf8');

  it('cover every operation: the Postman collection in one folder per group, the .http file once each', () => {
    expect(postman.item.map((folder) => folder.name)).toEqual(Object.keys(CONTRACT));
    for (const folder of postman.item) {
      const requests = folder.item.map(
        ({ request }) =>
          `${request.method} ${request.url.raw.replace('{{baseUrl}}', '').replace(/:(\w+)/g, '{$1}')}`,
      );
      expect(requests.sort()).toEqual([...(CONTRACT[folder.name] ?? [])].sort());
    }
    const httpRequests = [...http.matchAll(/^(GET|POST|PUT|PATCH|DELETE) \{\{baseUrl\}\}(\S+)$/gm)].map(
      ([, method, path]) => `${method} ${(path as string).replace(/\{\{(\w+)\}\}/g, '{$1}')}`,
    );
    expect(httpRequests.sort()).toEqual(Object.values(CONTRACT).flat().sort());
    expect(operationsOf(doc)).toHaveLength(46);
  });
});
