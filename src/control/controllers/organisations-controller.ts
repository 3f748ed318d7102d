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
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import { JSON_MEDIA_TYPE, PROBLEM_MEDIA_TYPE } from '../http/media-types.js';
import { callerOf } from '../auth/caller.js';
import type { PageSize } from '../models/common.js';
import type {
  CreateOrganisationRequest,
  CreateOrganisationResponse,
  OrganisationPage,
  OrganisationView,
  SuspendRequest,
} from '../models/organisation.js';
import type { ProblemDocument } from '../problems.js';
import type { ControlServices } from '../services/index.js';

/** Platform administration of every organisation. */
@Route('v1/organisations')
@Tags('Organisation')
@Security('bearer')
@Response<ProblemDocument>(
  400,
  'The request is not valid: `errors` names each bad field (validation_failed), or its body is not JSON (malformed_json)',
)
@Response<ProblemDocument>(
  401,
  'No, an invalid or an expired access token, an ended session, or a storage credential (unauthenticated, token_invalid, token_expired, session_ended, storage_credentials_not_accepted)',
)
@Response<ProblemDocument>(403, 'Only platform admins may do this (platform_admin_required)')
@Response<
  ProblemDocument,
  {
    /** Seconds to wait before retrying. */
    'Retry-After': string;
  }
>(503, 'The database did not answer; retry after Retry-After seconds (database_unavailable)')
// tsoa documents errors in the controller's media type; each operation's success names its own.
@Produces(PROBLEM_MEDIA_TYPE)
export class OrganisationsController extends Controller {
  constructor(private readonly services: ControlServices) {
    super();
  }

  /**
   * Every organisation with its status (platform admins).
   * @summary List organisations
   */
  @Get()
  @Produces(JSON_MEDIA_TYPE)
  public async listOrganisations(
    @Request() request: ExpressRequest,
    @Query() limit?: PageSize,
    @Query() cursor?: string,
  ): Promise<OrganisationPage> {
    return this.services.platform.list(callerOf(request), { limit, cursor });
  }

  /**
   * Creates an organisation and invites its first owner (platform admins); the invitation token is
   * returned this once.
   * @summary Create an organisation
   */
  @Post()
  @SuccessResponse(201, 'Organisation created', JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(
    409,
    'The name is taken (organisation_name_taken), or the owner already belongs to an organisation (already_member)',
  )
  public async createOrganisation(
    @Body() body: CreateOrganisationRequest,
    @Request() request: ExpressRequest,
  ): Promise<CreateOrganisationResponse> {
    return this.services.platform.create(callerOf(request), body);
  }

  /**
   * Suspends an organisation with a reason (platform admins): storage refuses all of its requests with
   * AccountProblem; no data is deleted.
   * @summary Suspend an organisation
   */
  @Post('{orgId}/suspend')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such organisation (organisation_not_found)')
  public async suspendOrganisation(
    @Path() orgId: string,
    @Body() body: SuspendRequest,
    @Request() request: ExpressRequest,
  ): Promise<OrganisationView> {
    return this.services.platform.suspend(callerOf(request), orgId, body.reason);
  }

  /**
   * Makes a suspended organisation active again (platform admins).
   * @summary Reinstate an organisation
   */
  @Post('{orgId}/reinstate')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such organisation (organisation_not_found)')
  public async reinstateOrganisation(
    @Path() orgId: string,
    @Request() request: ExpressRequest,
  ): Promise<OrganisationView> {
    return this.services.platform.reinstate(callerOf(request), orgId);
  }
}
