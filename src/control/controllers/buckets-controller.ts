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
import type {
  BucketPage,
  BucketView,
  CorsRules,
  CorsRulesUpdate,
  CreateBucketRequest,
  UpdateBucketRequest,
} from '../models/buckets.js';
import type { PageSize } from '../models/common.js';
import type { ProblemDocument } from '../problems.js';
import type { ControlServices } from '../services/index.js';

/** Members read; owners and admins create, change and delete buckets and their CORS rules. */
@Route('v1/buckets')
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
@Response<
  ProblemDocument,
  {
    /** Seconds to wait before retrying. */
    'Retry-After': string;
  }
>(503, 'The database did not answer; retry after Retry-After seconds (database_unavailable)')
// tsoa documents errors in the controller's media type; each operation's success names its own.
@Produces(PROBLEM_MEDIA_TYPE)
export class BucketsController extends Controller {
  constructor(private readonly services: ControlServices) {
    super();
  }

  /**
   * The organisation's buckets.
   * @summary List buckets
   */
  @Get()
  @Produces(JSON_MEDIA_TYPE)
  public async listBuckets(
    @Request() request: ExpressRequest,
    @Query() limit?: PageSize,
    @Query() cursor?: string,
  ): Promise<BucketPage> {
    return this.services.buckets.list(callerOf(request), { limit, cursor });
  }

  /**
   * Creates the bucket on the object store and records it for the organisation. Names are global.
   * Refused while the account is suspended.
   * @summary Create a bucket
   */
  @Post()
  @SuccessResponse(201, 'Bucket created', JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(502, 'The object store did not answer (backend_unavailable)')
  @Response<ProblemDocument>(
    403,
    'The account is suspended (account_suspended), your role does not allow this (forbidden), or you belong to no organisation (no_organisation)',
  )
  @Response<ProblemDocument>(409, 'The name is taken (bucket_name_taken)')
  public async createBucket(
    @Body() body: CreateBucketRequest,
    @Request() request: ExpressRequest,
  ): Promise<BucketView> {
    return this.services.buckets.create(callerOf(request), body);
  }

  /**
   * One bucket: public or not, created, CORS summary.
   * @summary Get a bucket
   */
  @Get('{bucket}')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such bucket in your organisation (bucket_not_found)')
  public async getBucket(@Path() bucket: string, @Request() request: ExpressRequest): Promise<BucketView> {
    return this.services.buckets.get(callerOf(request), bucket);
  }

  /**
   * Makes the bucket public (unsigned reads allowed) or private, and sets its storage quota (bytes
   * and objects, at most the organisation's). The first quota that applies to a bucket counts what
   * the store holds in it by listing it, before the answer.
   * @summary Change a bucket
   */
  @Patch('{bucket}')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(502, 'The object store did not answer (backend_unavailable)')
  @Response<ProblemDocument>(404, 'No such bucket in your organisation (bucket_not_found)')
  public async updateBucket(
    @Path() bucket: string,
    @Body() body: UpdateBucketRequest,
    @Request() request: ExpressRequest,
  ): Promise<BucketView> {
    return this.services.buckets.update(callerOf(request), bucket, body);
  }

  /**
   * Deletes an empty bucket on the object store and in records. Refused while the account is
   * suspended (stored data is kept as it is).
   * @summary Delete a bucket
   */
  @Delete('{bucket}')
  @SuccessResponse(204, 'Bucket deleted')
  @Response<ProblemDocument>(502, 'The object store did not answer (backend_unavailable)')
  @Response<ProblemDocument>(
    403,
    'The account is suspended (account_suspended), your role does not allow this (forbidden), or you belong to no organisation (no_organisation)',
  )
  @Response<ProblemDocument>(404, 'No such bucket in your organisation (bucket_not_found)')
  @Response<ProblemDocument>(409, 'The bucket is not empty (bucket_not_empty)')
  public async deleteBucket(@Path() bucket: string, @Request() request: ExpressRequest): Promise<void> {
    await this.services.buckets.delete(callerOf(request), bucket);
  }

  /**
   * The bucket's CORS rules (an empty list when there are none).
   * @summary Get CORS rules
   */
  @Get('{bucket}/cors')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such bucket in your organisation (bucket_not_found)')
  public async getBucketCors(@Path() bucket: string, @Request() request: ExpressRequest): Promise<CorsRules> {
    return this.services.buckets.cors(callerOf(request), bucket);
  }

  /**
   * Replaces the bucket's CORS rules; the only way to set them (storage refuses PutBucketCors).
   * @summary Replace CORS rules
   */
  @Put('{bucket}/cors')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such bucket in your organisation (bucket_not_found)')
  public async putBucketCors(
    @Path() bucket: string,
    @Body() body: CorsRulesUpdate,
    @Request() request: ExpressRequest,
  ): Promise<CorsRules> {
    return this.services.buckets.putCors(callerOf(request), bucket, body);
  }

  /**
   * Removes every CORS rule of the bucket.
   * @summary Remove CORS rules
   */
  @Delete('{bucket}/cors')
  @SuccessResponse(204, 'CORS rules removed')
  @Response<ProblemDocument>(404, 'No such bucket in your organisation (bucket_not_found)')
  public async deleteBucketCors(@Path() bucket: string, @Request() request: ExpressRequest): Promise<void> {
    await this.services.buckets.deleteCors(callerOf(request), bucket);
  }
}
