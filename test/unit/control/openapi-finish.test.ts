import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { finishOpenApi, problemCodesOf } from '../../../scripts/openapi-finish.js';

const committed = JSON.parse(
  readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/** A document with only components, as tsoa writes nullable and described references. */
function documentWith(schemas: Record<string, unknown>) {
  return { openapi: '3.0.0', paths: {}, components: { schemas } };
}

describe("finishing tsoa's OpenAPI output", () => {
  it('writes a nullable reference to an enum as the enum with null, beside its type', () => {
    const finished = finishOpenApi(
      documentWith({
        Role: { type: 'string', enum: ['owner', 'member'], description: 'A role.' },
        User: {
          type: 'object',
          properties: {
            role: { allOf: [{ $ref: '#/components/schemas/Role' }], nullable: true, description: 'Or none.' },
          },
        },
      }),
    );
    expect(finished.components.schemas.User).toEqual({
      type: 'object',
      properties: {
        role: { type: 'string', enum: ['owner', 'member', null], nullable: true, description: 'Or none.' },
      },
    });
  });

  it('lets each branch of a nullable union of primitives be null', () => {
    const finished = finishOpenApi(
      documentWith({
        Settings: {
          type: 'object',
          additionalProperties: { anyOf: [{ type: 'string' }, { type: 'boolean' }], nullable: true },
        },
      }),
    );
    expect(finished.components.schemas.Settings).toEqual({
      type: 'object',
      additionalProperties: {
        anyOf: [
          { type: 'string', nullable: true },
          { type: 'boolean', nullable: true },
        ],
      },
    });
  });

  it('keeps the description of a reference where OpenAPI 3.0 tools read it', () => {
    const finished = finishOpenApi(
      documentWith({
        Token: { type: 'object' },
        Answer: { properties: { token: { $ref: '#/components/schemas/Token', description: 'Once.' } } },
      }),
    );
    expect(finished.components.schemas.Answer).toEqual({
      properties: { token: { description: 'Once.', allOf: [{ $ref: '#/components/schemas/Token' }] } },
    });
  });

  it('refuses a nullable reference to an object rather than publishing a wrong schema', () => {
    expect(() =>
      finishOpenApi(
        documentWith({
          Thing: { type: 'object' },
          Holder: {
            properties: { thing: { allOf: [{ $ref: '#/components/schemas/Thing' }], nullable: true } },
          },
        }),
      ),
    ).toThrow(/not a primitive/);
  });

  it('takes the codes of an error response from its description, and refuses one naming none or a wrong one', () => {
    expect(problemCodesOf('Wrong password (invalid_credentials)', 401, 'x')).toEqual(['invalid_credentials']);
    expect(problemCodesOf('Not valid (validation_failed), or not JSON (malformed_json)', 400, 'x')).toEqual([
      'validation_failed',
      'malformed_json',
    ]);
    expect(() => problemCodesOf('Something went wrong', 400, 'POST /v1/x 400')).toThrow(
      /POST \/v1\/x 400 .* names no problem code/,
    );
    expect(() => problemCodesOf('Wrong (invalid_credentials)', 403, 'x')).toThrow(/which is 401, not 403/);
  });

  it('changes nothing in a finished document', () => {
    expect(finishOpenApi(committed)).toEqual(committed);
  });
});
