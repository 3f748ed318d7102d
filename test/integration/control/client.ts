import { expect } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Overrides the client's token; null sends no Authorization header. */
  token?: string | null;
}

/** A thin fetch wrapper for the control plane, holding one person's access token and refresh cookie. */
export class ControlClient {
  readonly baseUrl: string;
  token: string | null;
  refreshCookie: string | null;

  constructor(baseUrl: string, token: string | null = null, refreshCookie: string | null = null) {
    this.baseUrl = baseUrl;
    this.token = token;
    this.refreshCookie = refreshCookie;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null && headers.authorization === undefined) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    let body: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') body = JSON.parse(text);
    return { status: response.status, headers: response.headers, body, text };
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('POST', path, { ...options, body });
  }
  put(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('PUT', path, { ...options, body });
  }
  patch(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.request('PATCH', path, { ...options, body });
  }
  delete(path: string, options?: RequestOptions) {
    return this.request('DELETE', path, options);
  }

  /** POSTs to a refresh-cookie endpoint with this client's cookie (or the one given). */
  withCookie(path: string, cookie: string | null = this.refreshCookie) {
    return this.request('POST', path, {
      token: null,
      headers: cookie === null ? {} : { cookie: `gw_refresh=${cookie}` },
    });
  }
}

/** The refresh token a response set, or null. */
export function refreshCookieOf(response: ApiResponse): string | null {
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('gw_refresh='));
  if (cookie === undefined) return null;
  const value = cookie.slice('gw_refresh='.length).split(';')[0] as string;
  return value === '' ? null : value;
}

export function setCookieHeader(response: ApiResponse): string {
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('gw_refresh='));
  if (cookie === undefined) throw new Error('no refresh cookie was set');
  return cookie;
}

export async function login(baseUrl: string, email: string, password: string): Promise<ControlClient> {
  const anonymous = new ControlClient(baseUrl);
  const response = await anonymous.post('/v1/auth/login', { email, password });
  expect(response.status, response.text).toBe(200);
  return new ControlClient(baseUrl, response.body.access_token, refreshCookieOf(response));
}

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

let people = 0;

/** Invites a person into the inviter's organisation with a role, accepts, and logs them in. */
export async function addMember(
  gateway: TestGateway,
  inviter: ControlClient,
  role: 'owner' | 'admin' | 'member',
  password = 'a member password 123',
): Promise<{ client: ControlClient; email: string; userId: string; password: string }> {
  people += 1;
  const email = `person${people}-${Date.now()}@example.test`;
  const invited = await inviter.post('/v1/organisation/members', { email, role });
  expect(invited.status, invited.text).toBe(201);
  const accepted = await new ControlClient(gateway.controlUrl).post('/v1/auth/invitations/accept', {
    token: invited.body.invitation.token,
    password,
    name: `Person ${people}`,
  });
  expect(accepted.status, accepted.text).toBe(200);
  const client = new ControlClient(gateway.controlUrl, accepted.body.access_token, refreshCookieOf(accepted));
  return { client, email, userId: accepted.body.user.id, password };
}

/** A second organisation (created by the platform admin) with its owner logged in. */
export async function addOrganisation(
  gateway: TestGateway,
  platformAdmin: ControlClient,
  name: string,
): Promise<{ owner: ControlClient; organisationId: string; email: string }> {
  const email = `owner-of-${name}@example.test`;
  const created = await platformAdmin.post('/v1/organisations', { name, ownerEmail: email });
  expect(created.status, created.text).toBe(201);
  const accepted = await new ControlClient(gateway.controlUrl).post('/v1/auth/invitations/accept', {
    token: created.body.invitation.token,
    password: 'an owner password 123',
    name: `Owner of ${name}`,
  });
  expect(accepted.status, accepted.text).toBe(200);
  return {
    owner: new ControlClient(gateway.controlUrl, accepted.body.access_token, refreshCookieOf(accepted)),
    organisationId: created.body.organisation.id,
    email,
  };
}
