import { describe, expect, it } from 'vitest';
import { validateCorsRules } from '../../../src/control/services/bucket-rules.js';

describe('CORS rules', () => {
  it('upper-case and de-duplicate methods, keeping what was given', () => {
    const { rules, errors } = validateCorsRules([
      {
        allowedOrigins: ['https://a.example', 'http://*.b.example:8080'],
        allowedMethods: ['get', 'GET', 'put'],
      },
    ]);
    expect(errors).toEqual([]);
    expect(rules).toEqual([
      { allowedOrigins: ['https://a.example', 'http://*.b.example:8080'], allowedMethods: ['GET', 'PUT'] },
    ]);
  });

  it('name each bad origin, method and header by its path', () => {
    const { errors } = validateCorsRules([
      { allowedOrigins: ['*'], allowedMethods: ['GET'] },
      {
        allowedOrigins: ['example.com', 'https://*.*.example', 'https://ok.example/path'],
        allowedMethods: ['GET', 'OPTIONS'],
        allowedHeaders: ['x-amz-*', 'two**', 'sp ace'],
        exposeHeaders: ['ETag', 'x-*'],
      },
    ]);
    expect(errors.map((error) => error.field)).toEqual([
      'rules[1].allowedOrigins[0]',
      'rules[1].allowedOrigins[1]',
      'rules[1].allowedOrigins[2]',
      'rules[1].allowedMethods[1]',
      'rules[1].allowedHeaders[1]',
      'rules[1].allowedHeaders[2]',
      'rules[1].exposeHeaders[1]',
    ]);
  });
});
