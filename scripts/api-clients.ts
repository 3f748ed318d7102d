/**
 * Builds the Postman collection and the .http file from the OpenAPI document, so both always list
 * exactly the operations the code serves. Pure functions: scripts/generate-api-clients.ts writes the
 * files, the drift test compares them.
 */

export interface SchemaObject {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  example?: unknown;
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  allOf?: SchemaObject[];
  additionalProperties?: boolean | SchemaObject;
}

interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: SchemaObject;
}

interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: SchemaObject }> };
}

export interface OpenApi {
  info: { title: string; description?: string; version: string };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, SchemaObject> };
}

export interface Operation {
  method: string;
  path: string;
  tag: string;
  name: string;
  description: string;
  secured: boolean;
  pathParameters: ParameterObject[];
  queryParameters: ParameterObject[];
  body: unknown;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** Where a local gateway's control plane listens by default. */
const DEFAULT_BASE_URL = 'http://127.0.0.1:9001';
/** Endpoints whose response carries an access token worth keeping for the next requests. */
const TOKEN_ISSUING = new Set(['/v1/auth/login', '/v1/auth/refresh', '/v1/auth/invitations/accept']);

function resolve(doc: OpenApi, schema: SchemaObject): SchemaObject {
  if (schema.$ref === undefined) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = doc.components?.schemas?.[name];
  if (target === undefined) throw new Error(`unresolved schema ${schema.$ref}`);
  return resolve(doc, target);
}

function hasExample(doc: OpenApi, schema: SchemaObject): boolean {
  return schema.example !== undefined || resolve(doc, schema).example !== undefined;
}

/** A plausible example value for a schema: its example, default, first enum value, or a placeholder. */
export function exampleOf(doc: OpenApi, input: SchemaObject, name = 'value', depth = 0): unknown {
  const schema = resolve(doc, input);
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum !== undefined && schema.enum.length > 0) return schema.enum[0];
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants !== undefined) {
    const first = variants.find((variant) => resolve(doc, variant).type !== undefined) ?? variants[0];
    return first === undefined ? null : exampleOf(doc, first, name, depth);
  }
  if (schema.allOf !== undefined) {
    // One part is a described reference (openapi-finish.ts wraps a $ref so), of any type.
    const [only] = schema.allOf;
    if (schema.allOf.length === 1 && only !== undefined) return exampleOf(doc, only, name, depth);
    return Object.assign({}, ...schema.allOf.map((part) => exampleOf(doc, part, name, depth)));
  }
  if (depth > 6) return null;
  switch (schema.type) {
    case 'object': {
      const example: Record<string, unknown> = {};
      const required = schema.required ?? [];
      for (const [property, propertySchema] of Object.entries(schema.properties ?? {})) {
        // Optional properties appear only where the schema gives an example: some exclude each other.
        if (!required.includes(property) && !hasExample(doc, propertySchema)) continue;
        example[property] = exampleOf(doc, propertySchema, property, depth + 1);
      }
      return example;
    }
    case 'array':
      return schema.items === undefined ? [] : [exampleOf(doc, schema.items, name, depth + 1)];
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    case 'string':
      if (schema.format === 'date-time') return '2030-01-01T00:00:00.000Z';
      return `<${name}>`;
    default:
      return null;
  }
}

/** Every operation of the document, grouped in the order of its tags, then of its paths. */
export function operationsOf(doc: OpenApi): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const parameters = operation.parameters ?? [];
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      operations.push({
        method: method.toUpperCase(),
        path,
        tag: operation.tags?.[0] ?? 'Other',
        name: operation.summary ?? operation.operationId ?? `${method.toUpperCase()} ${path}`,
        description: operation.description ?? '',
        secured: (operation.security ?? []).length > 0,
        pathParameters: parameters.filter((parameter) => parameter.in === 'path'),
        queryParameters: parameters.filter((parameter) => parameter.in === 'query'),
        body: bodySchema === undefined ? undefined : exampleOf(doc, bodySchema, 'body'),
      });
    }
  }
  const tagOrder = (doc.tags ?? []).map((tag) => tag.name);
  const rank = (tag: string) => (tagOrder.includes(tag) ? tagOrder.indexOf(tag) : tagOrder.length);
  return operations
    .map((operation, index) => ({ operation, index }))
    .sort((a, b) => rank(a.operation.tag) - rank(b.operation.tag) || a.index - b.index)
    .map(({ operation }) => operation);
}

function pathParameterNames(operations: Operation[]): string[] {
  return [...new Set(operations.flatMap((operation) => operation.pathParameters.map((p) => p.name)))];
}

/** A Postman collection (v2.1): one folder per tag, bearer auth from the `accessToken` variable. */
export function buildPostmanCollection(doc: OpenApi): object {
  const operations = operationsOf(doc);
  const folders = (doc.tags ?? []).map((tag) => ({
    name: tag.name,
    description: tag.description ?? '',
    item: operations
      .filter((operation) => operation.tag === tag.name)
      .map((operation) => {
        const segments = operation.path
          .split('/')
          .filter((segment) => segment !== '')
          .map((segment) => segment.replace(/^\{(.+)\}$/, ':$1'));
        const request: Record<string, unknown> = {
          method: operation.method,
          header: operation.body === undefined ? [] : [{ key: 'Content-Type', value: 'application/json' }],
          url: {
            raw: `{{baseUrl}}/${segments.join('/')}`,
            host: ['{{baseUrl}}'],
            path: segments,
            ...(operation.queryParameters.length === 0
              ? {}
              : {
                  query: operation.queryParameters.map((parameter) => ({
                    key: parameter.name,
                    value: '',
                    description: parameter.description ?? '',
                    disabled: true,
                  })),
                }),
            ...(operation.pathParameters.length === 0
              ? {}
              : {
                  variable: operation.pathParameters.map((parameter) => ({
                    key: parameter.name,
                    value: `{{${parameter.name}}}`,
                  })),
                }),
          },
          description: operation.description,
          ...(operation.secured ? {} : { auth: { type: 'noauth' } }),
          ...(operation.body === undefined
            ? {}
            : {
                body: {
                  mode: 'raw',
                  raw: JSON.stringify(operation.body, null, 2),
                  options: { raw: { language: 'json' } },
                },
              }),
        };
        return {
          name: operation.name,
          request,
          ...(TOKEN_ISSUING.has(operation.path)
            ? {
                event: [
                  {
                    listen: 'test',
                    script: {
                      type: 'text/javascript',
                      exec: [
                        'if (pm.response.code === 200) {',
                        "  pm.collectionVariables.set('accessToken', pm.response.json().access_token);",
                        '}',
                      ],
                    },
                  },
                ],
              }
            : {}),
        };
      }),
  }));
  return {
    info: {
      name: doc.info.title,
      description: doc.info.description ?? '',
      version: doc.info.version,
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{accessToken}}', type: 'string' }] },
    variable: [
      { key: 'baseUrl', value: DEFAULT_BASE_URL },
      { key: 'accessToken', value: '' },
      ...pathParameterNames(operations).map((name) => ({ key: name, value: '' })),
    ],
    item: folders,
  };
}

/** An .http file (JetBrains HTTP client / VS Code REST Client), one request per operation. */
export function buildHttpFile(doc: OpenApi): string {
  const operations = operationsOf(doc);
  const lines: string[] = [
    `# ${doc.info.title} ${doc.info.version}. Generated from openapi/openapi.json by`,
    '# scripts/generate-api-clients.ts: do not edit. Log in first and copy access_token below.',
    '',
    `@baseUrl = ${DEFAULT_BASE_URL}`,
    '@accessToken = ',
    ...pathParameterNames(operations).map((name) => `@${name} = `),
    '',
  ];
  for (const operation of operations) {
    const target = operation.path.replace(/\{(.+?)\}/g, '{{$1}}');
    lines.push(`### ${operation.tag}: ${operation.name}`);
    if (operation.queryParameters.length > 0) {
      lines.push(`# query parameters: ${operation.queryParameters.map((p) => p.name).join(', ')}`);
    }
    lines.push(`${operation.method} {{baseUrl}}${target}`);
    if (operation.secured) lines.push('Authorization: Bearer {{accessToken}}');
    if (operation.body !== undefined) {
      lines.push('Content-Type: application/json', '', JSON.stringify(operation.body, null, 2));
    }
    lines.push('');
  }
  return lines.join('\n');
}

export function renderPostmanCollection(doc: OpenApi): string {
  return `${JSON.stringify(buildPostmanCollection(doc), null, 2)}\n`;
}
