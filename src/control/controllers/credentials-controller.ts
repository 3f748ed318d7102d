import type { Request as ExpressRequest } from 'express';
import {
  Body,
  Controller,
  Delete,
  Get,
  Patch,
  Path,
  Post,
  Produces,
  Put,
  Query,
  Request,
  Response,
  Route,
  Security,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import { JSON_MEDIA_TYPE, PROBLEM_MEDIA_TYPE } from '../http/media-types.js';
import { callerOf } from '../auth/caller.js';
import type { PageSize } from '../models/common.js';
import type {
  CreateCredentialRequest,
  CreatedCredential,
  CredentialPage,
  CredentialScopeBody,
  CredentialView,
  RotateCredentialRequest,
  RotatedCredential,
  UpdateCredentialRequest,
} from '../models/credentials.js';
import type { ProblemDocument } from '../problems.js';
import type { ControlServices } from '../services/index.js';

/** Owners and admins manage every credential of the organisation; members the ones they created. */
@Route('v1/credentials')
@Tags('Credentials')
@Security('bearer')
@Response<ProblemDocument>(
  400,
  'The request is not valid: `errors` names each bad field (validation_failed), or its body is not JSON (malformed_json)',
)
@Response<ProblemDocument>(
  401,
  'No, an invalid or an expired access token, an ended session, or a storage credential (unauthenticated, token_invalid, token_expired, session_ended, storage_credentials_not_accepted)',
)
@Response<ProblemDocument>(
  403,
  'Your role does not allow this (forbidden), or you belong to no organisation (no_organisation)',
)
@Response<
  ProblemDocument,
  {
    /** Seconds to wait before retrying. */
    'Retry-After': string;
  }
>(503, 'The database did not answer; retry after Retry-After seconds (database_unavailable)')
// tsoa documents errors in the controller's media type; each operation's success names its own.
@Produces(PROBLEM_MEDIA_TYPE)
export class CredentialsController extends Controller {
  constructor(private readonly services: ControlServices) {
    super();
  }

  /**
   * The organisation's storage credentials (a member sees the ones they created), never a secret.
   * @summary List credentials
   */
  @Get()
  @Produces(JSON_MEDIA_TYPE)
  public async listCredentials(
    @Request() request: ExpressRequest,
    @Query() limit?: PageSize,
    @Query() cursor?: string,
  ): Promise<CredentialPage> {
    return this.services.credentials.list(callerOf(request), { limit, cursor });
  }

  /**
   * Creates a storage credential. Its `secret` is in this response and never again.
   * @summary Create a credential
   */
  @Post()
  @SuccessResponse(201, 'Credential created', JSON_MEDIA_TYPE)
  public async createCredential(
    @Body() body: CreateCredentialRequest,
    @Request() request: ExpressRequest,
  ): Promise<CreatedCredential> {
    return this.services.credentials.create(callerOf(request), body);
  }

  /**
   * One credential: its scope, expiry, state (valid or expired) and last use.
   * @summary Get a credential
   */
  @Get('{accessKeyId}')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such credential in your organisation (credential_not_found)')
  public async getCredential(
    @Path() accessKeyId: string,
    @Request() request: ExpressRequest,
  ): Promise<CredentialView> {
    return this.services.credentials.get(callerOf(request), accessKeyId);
  }

  /**
   * Changes the name or the expiry (null: never expires).
   * @summary Change a credential
   */
  @Patch('{accessKeyId}')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such credential in your organisation (credential_not_found)')
  public async updateCredential(
    @Path() accessKeyId: string,
    @Body() body: UpdateCredentialRequest,
    @Request() request: ExpressRequest,
  ): Promise<CredentialView> {
    return this.services.credentials.update(callerOf(request), accessKeyId, body);
  }

  /**
   * Replaces the scope: the bucket allowlist and the permitted methods.
   * @summary Replace a credential's scope
   */
  @Put('{accessKeyId}/scope')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such credential in your organisation (credential_not_found)')
  public async replaceCredentialScope(
    @Path() accessKeyId: string,
    @Body() body: CredentialScopeBody,
    @Request() request: ExpressRequest,
  ): Promise<CredentialView> {
    return this.services.credentials.replaceScope(callerOf(request), accessKeyId, body);
  }

  /**
   * Issues a new secret, returned this once. With a grace period the old secret keeps verifying
   * until `previousSecretValidUntil`.
   * @summary Rotate a credential's secret
   */
  @Post('{accessKeyId}/rotate')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such credential in your organisation (credential_not_found)')
  public async rotateCredential(
    @Path() accessKeyId: string,
    @Request() request: ExpressRequest,
    @Body() body?: RotateCredentialRequest,
  ): Promise<RotatedCredential> {
    return this.services.credentials.rotate(callerOf(request), accessKeyId, body?.gracePeriodSeconds);
  }

  /**
   * Revokes the credential: its id no longer exists, storage answers InvalidAccessKeyId.
   * @summary Revoke a credential
   */
  @Delete('{accessKeyId}')
  @SuccessResponse(204, 'Credential revoked')
  @Response<ProblemDocument>(404, 'No such credential in your organisation (credential_not_found)')
  public async revokeCredential(
    @Path() accessKeyId: string,
    @Request() request: ExpressRequest,
  ): Promise<void> {
    await this.services.credentials.revoke(callerOf(request), accessKeyId);
  }
}
