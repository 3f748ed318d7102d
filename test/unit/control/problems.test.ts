import { ValidateError, ValidationService, type FieldErrors } from '@tsoa/runtime';
import { describe, expect, it } from 'vitest';
import { fieldErrors, fieldName, readableMessage } from '../../../src/control/http/errors.js';
import {
  fixNestedArrayFieldPaths,
  refuseCompositeEnumValues,
} from '../../../src/control/http/tsoa-field-paths.js';
import { PROBLEMS, ProblemError, invalidField } from '../../../src/control/problems.js';

describe('the problem catalogue', () => {
  it('gives every code an error status and a title', () => {
    for (const [code, problem] of Object.entries(PROBLEMS)) {
      expect(code).toMatch(/^[a-z_]+$/);
      expect(problem.status, code).toBeGreaterThanOrEqual(400);
      expect(problem.status, code).toBeLessThan(600);
      expect(problem.title.length, code).toBeGreaterThan(0);
    }
    expect(PROBLEMS.storage_credentials_not_accepted.status).toBe(401);
    expect(PROBLEMS.unauthenticated.status).toBe(401);
    expect(PROBLEMS.token_expired.status).toBe(401);
  });

  it('renders RFC 9457 documents with the code, request id and bad fields', () => {
    expect(invalidField('scope.buckets', 'must not be empty').toDocument('req-1')).toEqual({
      type: 'urn:s3-gateway:problem:validation_failed',
      title: 'The request is not valid',
      status: 400,
      detail: 'scope.buckets: must not be empty',
      code: 'validation_failed',
      errors: [{ field: 'scope.buckets', message: 'must not be empty' }],
      requestId: 'req-1',
    });
    const limited = new ProblemError('rate_limited', 'slow down', { headers: { 'Retry-After': '5' } });
    expect(limited.headers).toEqual({ 'Retry-After': '5' });
    expect(limited.toDocument()).not.toHaveProperty('errors');
  });
});

describe("naming tsoa's validation errors", () => {
  it('turns parameter paths into paths into the JSON sent', () => {
    expect(fieldName('body.scope.buckets')).toBe('scope.buckets');
    expect(fieldName('body.rules.$1.allowedOrigins.$0')).toBe('rules[1].allowedOrigins[0]');
    expect(fieldName('body.keys')).toBe('keys');
    expect(fieldName('body')).toBe('body');
    expect(fieldName('limit')).toBe('limit');
  });

  it('says which values a string-literal union allows', () => {
    const union =
      'Could not match the union against any of the items. Issues: [{"body.level":{"message":"should be one of the following; [\'read-only\']","value":"x"}},{"body.level":{"message":"should be one of the following; [\'read-write\']","value":"x"}}]';
    expect(readableMessage(union)).toBe("must be one of 'read-only', 'read-write'");
    expect(
      readableMessage(
        'Could not match the union against any of the items. Issues: [{"a":{"message":"invalid string value"}}]',
      ),
    ).toBe('does not match any of the allowed forms');
    expect(readableMessage('minLength 1')).toBe('minLength 1');
    expect(fieldErrors(new ValidateError({ 'body.name': { message: 'minLength 1' } }, '').fields)).toEqual([
      { field: 'name', message: 'minLength 1' },
    ]);
  });

  it('keeps the full path of elements of nested arrays', () => {
    fixNestedArrayFieldPaths();
    const models = {
      Rule: {
        dataType: 'refObject' as const,
        properties: {
          origins: { dataType: 'array' as const, array: { dataType: 'string' as const }, required: true },
        },
        additionalProperties: false,
      },
      Body: {
        dataType: 'refObject' as const,
        properties: {
          rules: {
            dataType: 'array' as const,
            array: { dataType: 'refObject' as const, ref: 'Rule' },
            required: true,
          },
        },
        additionalProperties: false,
      },
    };
    const validation = new ValidationService(models, {
      noImplicitAdditionalProperties: 'throw-on-extras',
      bodyCoercion: false,
    });
    const errors = {};
    validation.ValidateParam(
      { required: true, ref: 'Body', dataType: 'refObject' },
      { rules: [{ origins: ['ok'] }, { origins: ['ok', 7] }] },
      'body',
      errors,
      true,
      undefined,
    );
    expect(Object.keys(errors)).toEqual(['body.rules.$1.origins.$1']);
  });

  it('refuses arrays and objects where a string-literal union is expected', () => {
    refuseCompositeEnumValues();
    const models = {
      Role: {
        dataType: 'refAlias' as const,
        type: {
          dataType: 'union' as const,
          subSchemas: [
            { dataType: 'enum' as const, enums: ['owner'] },
            { dataType: 'enum' as const, enums: ['member'] },
          ],
        },
      },
      Body: {
        dataType: 'refObject' as const,
        properties: { role: { ref: 'Role', required: true } },
        additionalProperties: false,
      },
    };
    const validation = new ValidationService(models, {
      noImplicitAdditionalProperties: 'throw-on-extras',
      bodyCoercion: false,
    });
    const validate = (body: unknown) => {
      const errors: FieldErrors = {};
      const value = validation.ValidateParam(
        { required: true, ref: 'Body', dataType: 'refObject' },
        body,
        'body',
        errors,
        true,
        undefined,
      );
      return { errors: Object.keys(errors), value };
    };
    for (const role of [['owner'], { toString: () => 'owner' }, [['member']]]) {
      expect(validate({ role }).errors, JSON.stringify(role)).toEqual(['body.role']);
    }
    expect(validate({ role: 'owner' })).toEqual({ errors: [], value: { role: 'owner' } });
    expect(validate({ role: 'admin' }).errors).toEqual(['body.role']);
  });
});
