import { scopeAllowsMethod, scopeCoversBucket, scopeCoversKey, scopePrefixes } from '../../access/scope.js';
import { requireMember, type Caller, type Member } from '../auth/caller.js';
import type { ControlDependencies } from '../dependencies.js';
import type { PresignRequest, PresignResponse } from '../models/buckets.js';
import { invalidField, ProblemError } from '../problems.js';
import { objectKeyProblem } from '../../protocol/limits.js';
import type { BucketService } from './bucket-service.js';
import { credentialExpired } from '../../access/credential-expiry.js';
import { requireCredentialOfMember } from './record-rules.js';
import { presignS3Post, presignS3Url } from '../../sigv4/presign.js';

const DEFAULT_PRESIGN_SECONDS = 3600;

/**
 * Server-side presigning: a path-style URL on the public storage endpoint, query-signed (SigV4,
 * UNSIGNED-PAYLOAD) with the named credential's own secret, so the storage endpoint verifies it like
 * any client's and applies that credential's scope.
 */
export class PresignService {
  readonly #deps: ControlDependencies;
  readonly #buckets: BucketService;

  constructor(deps: ControlDependencies, buckets: BucketService) {
    this.#deps = deps;
    this.#buckets = buckets;
  }

  async presign(caller: Caller, bucketName: string, request: PresignRequest): Promise<PresignResponse> {
    const member = requireMember(caller);
    const bucket = await this.#buckets.bucketOf(member, bucketName);
    const keyProblem = objectKeyProblem(request.key);
    if (keyProblem !== null) throw invalidField('key', keyProblem);

    const credential = await this.#deps.context.store.credentials.find(request.accessKeyId);
    if (credential === null || credential.organisationId !== member.organisationId) {
      throw invalidField('accessKeyId', 'no credential with this id in your organisation');
    }
    requireCredentialOfMember(member, credential, 'Members presign only with the credentials they created.');
    if (credentialExpired(credential)) {
      throw new ProblemError('credential_expired', `The credential ${credential.accessKeyId} has expired.`);
    }
    // A form upload stores an object: the storage endpoint holds it to PUT.
    const scopeMethod = request.method === 'POST' ? 'PUT' : request.method;
    if (
      !scopeCoversBucket(credential.scope, bucket.name) ||
      !scopeAllowsMethod(credential.scope, scopeMethod)
    ) {
      throw new ProblemError(
        'credential_scope_insufficient',
        `The credential ${credential.accessKeyId} does not allow ${request.method} on bucket "${bucket.name}".`,
      );
    }
    // A form's key is fixed up to ${filename}: that part must already be under an allowed prefix.
    const signedKey = request.method === 'POST' ? (request.key.split('${filename}')[0] ?? '') : request.key;
    if (!scopeCoversKey(credential.scope, bucket.name, signedKey)) {
      const prefixes = (scopePrefixes(credential.scope, bucket.name) ?? []).map((prefix) => `"${prefix}"`);
      throw new ProblemError(
        'credential_scope_insufficient',
        `The credential ${credential.accessKeyId} reaches only keys under ${prefixes.join(', ')} in bucket "${bucket.name}".`,
      );
    }

    if (request.maxSizeBytes !== undefined && request.method !== 'POST') {
      throw invalidField('maxSizeBytes', 'only a POST (form upload) has a size limit');
    }
    if (request.successActionRedirect !== undefined) {
      if (request.method !== 'POST') {
        throw invalidField('successActionRedirect', 'only a POST (form upload) redirects');
      }
      if (!/^https?:\/\/[^\s]+$/i.test(request.successActionRedirect)) {
        throw invalidField('successActionRedirect', 'must be an http:// or https:// URL');
      }
    }
    const expiresIn = request.expiresIn ?? DEFAULT_PRESIGN_SECONDS;
    const signingDate = new Date();
    // The storage endpoint accepts the configured regions; the first is the one it names.
    const region = this.#deps.context.config.s3.regions[0] ?? 'us-east-1';
    if (request.method === 'POST') {
      const form = await presignS3Post({
        accessKeyId: credential.accessKeyId,
        secret: credential.secret,
        endpoint: this.#deps.context.s3PublicUrl,
        bucket: bucket.name,
        key: request.key,
        expiresIn,
        signingDate,
        region,
        ...(request.contentType === undefined ? {} : { contentType: request.contentType }),
        ...(request.maxSizeBytes === undefined ? {} : { maxSizeBytes: request.maxSizeBytes }),
        ...(request.successActionRedirect === undefined
          ? {}
          : { successActionRedirect: request.successActionRedirect }),
      });
      await this.#audit(member, bucket.name, request, credential.accessKeyId, expiresIn);
      return {
        url: form.url,
        method: 'POST',
        headers: {},
        fields: form.fields,
        expiresAt: new Date(signingDate.getTime() + expiresIn * 1000),
      };
    }
    const headers: Record<string, string> =
      request.contentType === undefined ? {} : { 'content-type': request.contentType };
    const url = await presignS3Url({
      accessKeyId: credential.accessKeyId,
      secret: credential.secret,
      endpoint: this.#deps.context.s3PublicUrl,
      bucket: bucket.name,
      key: request.key,
      method: request.method,
      expiresIn,
      headers,
      signingDate,
      region,
    });
    await this.#audit(member, bucket.name, request, credential.accessKeyId, expiresIn);
    return {
      url,
      method: request.method,
      headers,
      expiresAt: new Date(signingDate.getTime() + expiresIn * 1000),
    };
  }

  async #audit(
    member: Member,
    bucket: string,
    request: PresignRequest,
    accessKeyId: string,
    expiresIn: number,
  ): Promise<void> {
    await this.#deps.audit.record(member, {
      organisationId: member.organisationId,
      action: 'object.presign',
      target: `${bucket}/${request.key}`,
      details: { method: request.method, accessKeyId, expiresIn },
    });
  }
}
