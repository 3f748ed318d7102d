/**
 * The control plane as an operator drives it: JSON over HTTP with a person's bearer token. The
 * e2e suite sets up every organisation, user, bucket, credential and CORS rule through it.
 */

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

async function send(
  baseUrl: string,
  method: string,
  path: string,
  token: string | null,
  body: unknown,
): Promise<{ status: number; json: any; text: string }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, json, text };
}

async function expectStatus(
  baseUrl: string,
  method: string,
  path: string,
  token: string | null,
  body: unknown,
  expected: number,
): Promise<any> {
  const answer = await send(baseUrl, method, path, token, body);
  if (answer.status !== expected) {
    throw new Error(`${method} ${path}: expected ${expected}, got ${answer.status}: ${answer.text}`);
  }
  return answer.json;
}

export class ControlPlane {
  private constructor(
    readonly baseUrl: string,
    private readonly token: string,
    readonly userEmail: string,
  ) {}

  static async login(baseUrl: string, email: string, password: string): Promise<ControlPlane> {
    const answer = await expectStatus(baseUrl, 'POST', '/v1/auth/login', null, { email, password }, 200);
    return new ControlPlane(baseUrl, answer.access_token as string, email);
  }

  /** Accepts an invitation (creating the user), which logs the new user in. */
  static async acceptInvitation(
    baseUrl: string,
    invitationToken: string,
    user: { email: string; password: string; name: string },
  ): Promise<ControlPlane> {
    const answer = await expectStatus(
      baseUrl,
      'POST',
      '/v1/auth/invitations/accept',
      null,
      { token: invitationToken, password: user.password, name: user.name },
      200,
    );
    if (answer.user?.email !== user.email) throw new Error(`invitation accepted for ${answer.user?.email}`);
    return new ControlPlane(baseUrl, answer.access_token as string, user.email);
  }

  call(method: string, path: string, body: unknown, expected: number): Promise<any> {
    return expectStatus(this.baseUrl, method, path, this.token, body, expected);
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
