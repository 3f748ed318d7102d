import type { Request as ExpressRequest } from 'express';
import {
  Body,
  Controller,
  Get,
  Path,
  Post,
  Produces,
  Query,
  Request,
  Response,
  Route,
  Security,
  Tags,
} from '@tsoa/runtime';
import { JSON_MEDIA_TYPE, PROBLEM_MEDIA_TYPE } from '../http/media-types.js';
import { callerOf } from '../auth/caller.js';
import type {
  DeleteObjectsRequest,
  DeleteObjectsResponse,
  ObjectListingView,
  PresignRequest,
  PresignResponse,
} from '../models/buckets.js';
import type { PageSize } from '../models/common.js';
import type { ProblemDocument } from '../problems.js';
import type { ControlServices } from '../services/index.js';

/** Objects of one bucket: listing, batch deletion, presigned URLs. */
@Route('v1/buckets/{bucket}')
@Tags('Buckets, objects & CORS')
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
@Response<ProblemDocument>(404, 'No such bucket in your organisation (bucket_not_found)')
@Response<
  ProblemDocument,
  {
    /** Seconds to wait before retrying. */
    'Retry-After': string;
  }
>(503, 'The database did not answer; retry after Retry-After seconds (database_unavailable)')
// tsoa documents errors in the controller's media type; each operation's success names its own.
@Produces(PROBLEM_MEDIA_TYPE)
export class ObjectsController extends Controller {
  constructor(private readonly services: ControlServices) {
    super();
  }

  /**
   * Lists objects, optionally under a prefix and grouped by a delimiter. Refused while the account
   * is suspended, like every storage request.
   * @summary List objects
   */
  @Get('objects')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(502, 'The object store did not answer (backend_unavailable)')
  @Response<ProblemDocument>(
    403,
    'The account is suspended (account_suspended), or you belong to no organisation (no_organisation)',
  )
  public async listObjects(
    @Path() bucket: string,
    @Request() request: ExpressRequest,
    @Query() prefix?: string,
    @Query() delimiter?: string,
    @Query() cursor?: string,
    @Query() limit?: PageSize,
  ): Promise<ObjectListingView> {
    return this.services.buckets.listObjects(callerOf(request), bucket, { prefix, delimiter, cursor, limit });
  }

  /**
   * Deletes up to 1000 keys (owners and admins), with a result per key. Refused while the account
   * is suspended (stored data is kept as it is).
   * @summary Delete objects
   */
  @Post('objects/delete')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(502, 'The object store did not answer (backend_unavailable)')
  @Response<ProblemDocument>(
    403,
    'The account is suspended (account_suspended), your role does not allow this (forbidden), or you belong to no organisation (no_organisation)',
  )
  public async deleteObjects(
    @Path() bucket: string,
    @Body() body: DeleteObjectsRequest,
    @Request() request: ExpressRequest,
  ): Promise<DeleteObjectsResponse> {
    return this.services.buckets.deleteObjects(callerOf(request), bucket, body.keys);
  }

  /**
   * Makes a presigned storage URL, signed with the named credential of your organisation, whose scope
   * must cover the bucket and the method. Members presign with the credentials they created. Works
   * while the account is suspended, like issuing a credential: the storage endpoint refuses the URL
   * with AccountProblem until the account is reinstated.
   * @summary Presign a storage request
   */
  @Post('presign')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(
    403,
    'The credential does not cover this request (credential_scope_insufficient), has expired (credential_expired), or you belong to no organisation (no_organisation)',
  )
  public async presignObject(
    @Path() bucket: string,
    @Body() body: PresignRequest,
    @Request() request: ExpressRequest,
  ): Promise<PresignResponse> {
    return this.services.presign.presign(callerOf(request), bucket, body);
  }
}
