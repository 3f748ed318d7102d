/**
 * The control plane as its users drive it: JSON over HTTP with a person's bearer token (and refresh
 * cookie). One client for the unit, integration and e2e suites and the benchmark: raw answers
 * (status, headers, body) for tests that assert what the API refuses, and typed helpers that set up
 * organisations, buckets, credentials and CORS rules and throw on any answer but the expected one.
 * It does not use vitest, so the benchmark can run it outside a test runner.
 */

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON for a JSON answer, else the text. */
  body: any;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Overrides the client's token; null sends no Authorization header. */
  token?: string | null;
}

export interface StorageKey {
  accessKeyId: string;
  secret: string;
}

export interface CredentialScope {
  buckets: string[];
  level?: 'read-only' | 'read-write';
  methods?: string[];
  prefixes?: Record<string, string[]>;
}

export interface CorsRule {
  allowedOrigins: string[];
  allowedMethods: string[];
  allowedHeaders?: string[];
  exposeHeaders?: string[];
  maxAgeSeconds?: number;
}

export interface Presigned {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** POST: the form's fields. */
  fields?: Record<string, string>;
  expiresAt: string;
}

/**
 * The benchmark runs outside a test runner, where nothing else would end a call to a control plane
 * that hangs; in the suites the test's own timeout comes first.
 */
const REQUEST_TIMEOUT_MS = 30_000;

/** One person's session with the control plane (or nobody's, with no token). */
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
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
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

  /** The body of an answer with exactly the `expected` status; any other status throws, with the answer. */
  async call(method: string, path: string, body: unknown, expected: number): Promise<any> {
    const answer = await this.request(method, path, { body });
    if (answer.status !== expected) {
      throw new Error(`${method} ${path}: expected ${expected}, got ${answer.status}: ${answer.text}`);
    }
    return answer.body;
  }

  /** Platform admins: a new organisation and the one-time invitation token of its first owner. */
  async createOrganisation(
    name: string,
    ownerEmail: string,
  ): Promise<{ id: string; invitationToken: string }> {
    const answer = await this.call('POST', '/v1/organisations', { name, ownerEmail }, 201);
    return { id: answer.organisation.id as string, invitationToken: answer.invitation.token as string };
  }

  async organisationId(): Promise<string> {
    return (await this.call('GET', '/v1/me/organisation', undefined, 200)).id as string;
  }

  async suspend(organisationId: string, reason: string): Promise<void> {
    const answer = await this.call('POST', `/v1/organisations/${organisationId}/suspend`, { reason }, 200);
    if (answer.status !== 'suspended') throw new Error(`organisation is ${answer.status} after suspend`);
  }

  async reinstate(organisationId: string): Promise<void> {
    const answer = await this.call('POST', `/v1/organisations/${organisationId}/reinstate`, undefined, 200);
    if (answer.status !== 'active') throw new Error(`organisation is ${answer.status} after reinstate`);
  }

  async createBucket(name: string): Promise<void> {
    await this.call('POST', '/v1/buckets', { name }, 201);
  }

  async createCredential(name: string, scope: CredentialScope): Promise<StorageKey> {
    const answer = await this.call('POST', '/v1/credentials', { name, scope }, 201);
    return { accessKeyId: answer.accessKeyId as string, secret: answer.secret as string };
  }

  async revokeCredential(accessKeyId: string): Promise<void> {
    await this.call('DELETE', `/v1/credentials/${accessKeyId}`, undefined, 204);
  }

  async putCors(bucket: string, rules: CorsRule[]): Promise<void> {
    await this.call('PUT', `/v1/buckets/${bucket}/cors`, { rules }, 200);
  }

  async presign(
    bucket: string,
    request: {
      key: string;
      method: 'GET' | 'PUT' | 'HEAD' | 'DELETE' | 'POST';
      accessKeyId: string;
      expiresIn?: number;
      contentType?: string;
      maxSizeBytes?: number;
      successActionRedirect?: string;
    },
  ): Promise<Presigned> {
    return (await this.call('POST', `/v1/buckets/${bucket}/presign`, request, 200)) as Presigned;
  }

  /** Empties a bucket and deletes it (a cleanup; the cluster is thrown away after the run anyway). */
  async deleteBucketWithObjects(bucket: string): Promise<void> {
    for (;;) {
      const page = await this.call('GET', `/v1/buckets/${bucket}/objects?limit=1000`, undefined, 200);
      const keys = (page.objects as { key: string }[]).map((object) => object.key);
      if (keys.length === 0) break;
      await this.call('POST', `/v1/buckets/${bucket}/objects/delete`, { keys }, 200);
    }
    await this.call('DELETE', `/v1/buckets/${bucket}`, undefined, 204);
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

/** A client logged in with this email and password (their access token and refresh cookie). */
export async function login(baseUrl: string, email: string, password: string): Promise<ControlClient> {
  const response = await new ControlClient(baseUrl).post('/v1/auth/login', { email, password });
  if (response.status !== 200)
    throw new Error(`login as ${email}: HTTP ${response.status}: ${response.text}`);
  return new ControlClient(baseUrl, response.body.access_token, refreshCookieOf(response));
}

/** Accepts an invitation (creating the user), which logs the new user in. */
export async function acceptInvitation(
  baseUrl: string,
  invitationToken: string,
  user: { email?: string; password: string; name: string },
): Promise<{ client: ControlClient; userId: string }> {
  const accepted = await new ControlClient(baseUrl).post('/v1/auth/invitations/accept', {
    token: invitationToken,
    password: user.password,
    name: user.name,
  });
  if (accepted.status !== 200) {
    throw new Error(`accepting an invitation: HTTP ${accepted.status}: ${accepted.text}`);
  }
  if (user.email !== undefined && accepted.body.user?.email !== user.email) {
    throw new Error(`invitation accepted for ${accepted.body.user?.email}, not ${user.email}`);
  }
  return {
    client: new ControlClient(baseUrl, accepted.body.access_token, refreshCookieOf(accepted)),
    userId: accepted.body.user.id as string,
  };
}

let people = 0;

/** Invites a person into the inviter's organisation with a role, accepts, and logs them in. */
export async function addMember(
  inviter: ControlClient,
  role: 'owner' | 'admin' | 'member',
  password = 'a member password 123',
): Promise<{ client: ControlClient; email: string; userId: string; password: string }> {
  people += 1;
  const email = `person${people}-${Date.now()}@example.test`;
  const invited = await inviter.call('POST', '/v1/organisation/members', { email, role }, 201);
  const { client, userId } = await acceptInvitation(inviter.baseUrl, invited.invitation.token, {
    password,
    name: `Person ${people}`,
  });
  return { client, email, userId, password };
}

/** A second organisation (created by the platform admin) with its owner logged in. */
export async function addOrganisation(
  platformAdmin: ControlClient,
  name: string,
): Promise<{ owner: ControlClient; organisationId: string; email: string }> {
  const email = `owner-of-${name}@example.test`;
  const created = await platformAdmin.createOrganisation(name, email);
  const { client } = await acceptInvitation(platformAdmin.baseUrl, created.invitationToken, {
    email,
    password: 'an owner password 123',
    name: `Owner of ${name}`,
  });
  return { owner: client, organisationId: created.id, email };
}
