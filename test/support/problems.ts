/**
 * Assertions on the control plane's refusals (RFC 9457 problem documents), apart from the client in
 * control-plane.ts so that the benchmark, which uses the client outside vitest, does not load vitest.
 */
import { expect } from 'vitest';
import type { ApiResponse } from './control-plane.js';

/** Asserts an RFC 9457 problem with this status and code; returns its body. */
export function expectProblem(response: ApiResponse, status: number, code: string) {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ status, code, type: expect.any(String), title: expect.any(String) });
  expect(typeof response.body.detail).toBe('string');
  return response.body;
}

/** Asserts a 429 rate_limited problem whose Retry-After is a whole number of seconds within the window. */
export function expectRateLimited(response: ApiResponse) {
  expectProblem(response, 429, 'rate_limited');
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

/** Asserts a validation problem that names (at least) these fields. */
export function expectInvalidFields(response: ApiResponse, ...fields: string[]) {
  const body = expectProblem(response, 400, 'validation_failed');
  const named = (body.errors as { field: string; message: string }[]).map((error) => error.field);
  for (const field of fields) expect(named, response.text).toContain(field);
  return body;
}
