import { describe, expect, it } from 'vitest';
import {
  actualResponseHeaders,
  findCorsRule,
  originMatches,
  preflightResponseHeaders,
  requestedHeaders,
} from '../../../src/s3/steps/cors.js';
import type { CorsRule } from '../../../src/store/records.js';

const uploadRule: CorsRule = {
  allowedOrigins: ['https://app.example.com'],
  allowedMethods: ['PUT', 'post'],
  allowedHeaders: ['Content-Type', 'x-amz-*'],
  exposeHeaders: ['ETag', 'x-amz-request-id'],
  maxAgeSeconds: 300,
};
const readRule: CorsRule = { allowedOrigins: ['*'], allowedMethods: ['GET', 'HEAD'] };

describe('originMatches', () => {
  it('matches exactly, or around one wildcard', () => {
    expect(originMatches('https://a.example', 'https://a.example')).toBe(true);
    expect(originMatches('https://a.example', 'https://a.example.evil')).toBe(false);
    expect(originMatches('*', 'null')).toBe(true);
    expect(originMatches('https://*.example.com', 'https://x.y.example.com')).toBe(true);
    expect(originMatches('https://*.example.com', 'http://x.example.com')).toBe(false);
    expect(originMatches('https://*.example.com', 'https://example.com')).toBe(false);
  });
});

describe('findCorsRule', () => {
  it('picks the first rule allowing origin, method and every requested header', () => {
    expect(
      findCorsRule([uploadRule, readRule], 'https://app.example.com', 'PUT', ['content-type', 'x-amz-date']),
    ).toBe(uploadRule);
    expect(findCorsRule([uploadRule, readRule], 'https://app.example.com', 'POST')).toBe(uploadRule);
    expect(findCorsRule([uploadRule, readRule], 'https://app.example.com', 'GET')).toBe(readRule);
    expect(findCorsRule([uploadRule, readRule], 'https://other.example', 'PUT')).toBeUndefined();
    expect(findCorsRule([uploadRule], 'https://app.example.com', 'PUT', ['authorization'])).toBeUndefined();
    expect(findCorsRule([readRule], 'https://any.example', 'GET', ['range'])).toBeUndefined();
    expect(findCorsRule([], 'https://app.example.com', 'GET')).toBeUndefined();
  });

  it('parses Access-Control-Request-Headers', () => {
    expect(requestedHeaders(' Content-Type ,X-Amz-Date,, ')).toEqual(['content-type', 'x-amz-date']);
    expect(requestedHeaders(undefined)).toEqual([]);
  });
});

describe('response headers', () => {
  it('echo a named origin with credentials; answer * for a wildcard rule', () => {
    expect(actualResponseHeaders(uploadRule, 'https://app.example.com')).toMatchObject({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'PUT, POST',
      'access-control-expose-headers': 'ETag, x-amz-request-id',
      'access-control-max-age': '300',
    });
    const wildcard = actualResponseHeaders(readRule, 'https://any.example');
    expect(wildcard['access-control-allow-origin']).toBe('*');
    expect(wildcard['access-control-allow-credentials']).toBeUndefined();
    expect(wildcard['access-control-expose-headers']).toBeUndefined();
  });

  it('list the allowed request headers on a preflight', () => {
    expect(
      preflightResponseHeaders(uploadRule, 'https://app.example.com', ['content-type'])[
        'access-control-allow-headers'
      ],
    ).toBe('content-type');
    expect(
      preflightResponseHeaders(readRule, 'https://x', [])['access-control-allow-headers'],
    ).toBeUndefined();
  });
});
