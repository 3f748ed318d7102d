/**
 * What tsoa's OpenAPI 3.0 output needs before it is published. `npm run generate:api` applies it to
 * openapi/openapi.json, the drift test to tsoa's fresh output, so the document stays generated from
 * the code. A pure function of the document.
 */
import {
  backendUnavailable,
  databaseUnavailable,
  PROBLEMS,
  ProblemError,
  validationProblem,
  type FieldError,
  type ProblemCode,
} from '../src/control/problems.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const PROBLEM_MEDIA_TYPE = 'application/problem+json';
/** The request id every example carries; real answers echo the x-request-id header. */
const EXAMPLE_REQUEST_ID = '3f1c2b9e-6d4a-4f8e-9b1a-7c5d2e8f0a41';
const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function schemaNamed(doc: JsonObject, ref: string): JsonObject {
  const name = ref.replace('#/components/schemas/', '');
  const components = doc.components;
  const schemas = isObject(components) ? components.schemas : undefined;
  const schema = isObject(schemas) ? schemas[name] : undefined;
  if (!isObject(schema)) throw new Error(`openapi-finish: unresolved ${ref}`);
  return schema;
}

/**
 * OpenAPI 3.0.3 defines `nullable` only beside a `type` in the same schema (redocly's
 * nullable-type-sibling rule); tsoa writes `T | null` without one. A nullable reference to a
 * primitive schema (an enum such as Role) becomes that schema inline with null allowed; a nullable
 * union of primitives allows null in each branch. `$ref` siblings are ignored by 3.0 tools, so a
 * described reference is wrapped in an allOf that keeps its description.
 */
function finishSchema(doc: JsonObject, schema: JsonObject, where: string): JsonObject {
  const { nullable, type, allOf, anyOf, $ref, ...rest } = schema;
  if (nullable === true && type === undefined) {
    const only = Array.isArray(allOf) && allOf.length === 1 ? allOf[0] : undefined;
    if (isObject(only) && typeof only.$ref === 'string' && anyOf === undefined) {
      const target = schemaNamed(doc, only.$ref);
      if (!PRIMITIVE_TYPES.has(String(target.type))) {
        throw new Error(`openapi-finish: ${where} is a nullable ${only.$ref}, which is not a primitive`);
      }
      const inline: JsonObject = { ...target, ...rest, nullable: true };
      // OpenAPI 3.0.3: an enum lists null itself when null is allowed.
      if (Array.isArray(target.enum)) inline.enum = [...target.enum, null];
      return inline;
    }
    if (Array.isArray(anyOf) && allOf === undefined) {
      const branches = anyOf.map((branch) => {
        if (!isObject(branch) || !PRIMITIVE_TYPES.has(String(branch.type))) {
          throw new Error(`openapi-finish: ${where} is a nullable union of a non-primitive`);
        }
        return { ...branch, nullable: true };
      });
      return { ...rest, anyOf: branches };
    }
    throw new Error(`openapi-finish: ${where} is nullable without a type, in a shape not handled`);
  }
  if (typeof $ref === 'string' && Object.keys(schema).length > 1) {
    return { ...rest, ...(type === undefined ? {} : { type }), allOf: [{ $ref }] };
  }
  return schema;
}

/** Applies finishSchema to every schema below `node`, depth first. */
function finishSchemas(doc: JsonObject, node: Json, where: string): Json {
  if (Array.isArray(node)) return node.map((item, index) => finishSchemas(doc, item, `${where}[${index}]`));
  if (!isObject(node)) return node;
  const children: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    // Examples are data, not schemas, whatever keys they hold.
    children[key] =
      key === 'example' || key === 'examples' ? value : finishSchemas(doc, value, `${where}/${key}`);
  }
  return finishSchema(doc, children, where);
}

/**
 * The problem codes a response's description names in parentheses, e.g. "Wrong e-mail address or
 * password (invalid_credentials)". Each must be a code of the catalogue with the response's status.
 */
export function problemCodesOf(description: string, status: number, where: string): ProblemCode[] {
  const named = [...description.matchAll(/\(([^)]*)\)/g)].flatMap(([, inside]) =>
    (inside as string)
      .split(/[\s,]+/)
      .filter((word) => /^[a-z]+(?:_[a-z]+)*$/.test(word) && word in PROBLEMS),
  ) as ProblemCode[];
  if (named.length === 0) {
    throw new Error(`openapi-finish: ${where} "${description}" names no problem code in parentheses`);
  }
  for (const code of named) {
    if (PROBLEMS[code].status !== status) {
      throw new Error(
        `openapi-finish: ${where} names ${code}, which is ${PROBLEMS[code].status}, not ${status}`,
      );
    }
  }
  return [...new Set(named)];
}

interface Parameter {
  name?: Json;
  in?: Json;
  schema?: Json;
}

/** A bad field the operation could really be refused for, so the validation example looks like its own. */
function exampleFieldError(doc: JsonObject, operation: JsonObject): FieldError {
  const body = isObject(operation.requestBody) ? operation.requestBody.content : undefined;
  const bodySchema = isObject(body) ? Object.values(body).find(isObject)?.schema : undefined;
  if (isObject(bodySchema)) {
    const resolved = typeof bodySchema.$ref === 'string' ? schemaNamed(doc, bodySchema.$ref) : bodySchema;
    const required = Array.isArray(resolved.required) ? resolved.required : [];
    const first = required.find((name): name is string => typeof name === 'string');
    if (first !== undefined) return { field: first, message: `'${first}' is required` };
  }
  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []) as Parameter[];
  const query = parameters.filter((parameter) => parameter.in === 'query');
  const limit = query.find((parameter) => parameter.name === 'limit');
  if (limit !== undefined) return { field: 'limit', message: 'invalid integer number' };
  const date = query.find(
    (parameter) => isObject(parameter.schema) && parameter.schema.format === 'date-time',
  );
  if (date !== undefined) {
    return {
      field: String(date.name),
      message: 'invalid ISO 8601 datetime format, i.e. YYYY-MM-DDTHH:mm:ss',
    };
  }
  if (parameters.some((parameter) => parameter.in === 'path')) {
    return { field: 'path', message: '"%C0%AE" is not valid percent-encoded UTF-8' };
  }
  return { field: 'x', message: 'must not contain a NUL character' };
}

/** Problems the service answers with a detail of their own: the example shows that answer. */
const SERVICE_ANSWERS: Partial<Record<ProblemCode, () => ProblemError>> = {
  backend_unavailable: backendUnavailable,
  database_unavailable: databaseUnavailable,
};

function exampleOf(problem: ProblemError): JsonObject {
  return {
    summary: `${problem.code}: ${PROBLEMS[problem.code].title}`,
    value: problem.toDocument(EXAMPLE_REQUEST_ID) as unknown as JsonObject,
  };
}

/**
 * One named example per code, built by the code that answers with the problem. A validation
 * problem names a field of the operation, so it is written in place; the others are the same
 * everywhere and are referenced from components.examples.
 */
function problemExamples(
  doc: JsonObject,
  shared: JsonObject,
  operation: JsonObject,
  codes: ProblemCode[],
): JsonObject {
  const examples: JsonObject = {};
  for (const code of codes) {
    if (code === 'validation_failed') {
      examples[code] = exampleOf(validationProblem([exampleFieldError(doc, operation)]));
      continue;
    }
    shared[code] = exampleOf(SERVICE_ANSWERS[code]?.() ?? new ProblemError(code));
    examples[code] = { $ref: `#/components/examples/${code}` };
  }
  return examples;
}

/** Every error response of every operation gets the examples its description names. */
function addProblemExamples(doc: JsonObject): void {
  const shared: JsonObject = {};
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        const content = isObject(response) && isObject(response.content) ? response.content : undefined;
        const media = content?.[PROBLEM_MEDIA_TYPE];
        if (!isObject(response) || !isObject(media)) continue;
        const where = `${method.toUpperCase()} ${path} ${status}`;
        const codes = problemCodesOf(String(response.description ?? ''), Number(status), where);
        media.examples = problemExamples(doc, shared, operation, codes);
      }
    }
  }
  const components = isObject(doc.components) ? doc.components : {};
  const existing = isObject(components.examples) ? components.examples : {};
  components.examples = Object.fromEntries(
    Object.entries({ ...existing, ...shared }).sort(([a], [b]) => a.localeCompare(b)),
  );
  doc.components = components;
}

export function finishOpenApi<T>(generated: T): T {
  const doc = structuredClone(generated) as unknown as JsonObject;
  const finished = finishSchemas(doc, doc, '#') as JsonObject;
  addProblemExamples(finished);
  return finished as unknown as T;
}
