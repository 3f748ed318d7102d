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
import type { OneTimeToken, PageSize } from '../models/common.js';
import type {
  AuditPage,
  ChangeRoleRequest,
  InvitationResponse,
  InviteMemberRequest,
  MemberPage,
  MemberView,
  OrganisationView,
  UpdateOrganisationRequest,
  UsageReport,
} from '../models/organisation.js';
import type { ProblemDocument } from '../problems.js';
import type { ControlServices } from '../services/index.js';

@Route('v1/organisation')
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
@Response<ProblemDocument>(
  403,
  'Your role does not allow this (forbidden, platform_admin_required), or you belong to no organisation (no_organisation)',
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
export class OrganisationController extends Controller {
  constructor(private readonly services: ControlServices) {
    super();
  }

  /**
   * The caller's organisation: name, status, suspension reason and settings.
   * @summary Get the organisation
   */
  @Get()
  @Produces(JSON_MEDIA_TYPE)
  public async getOrganisation(@Request() request: ExpressRequest): Promise<OrganisationView> {
    return this.services.organisation.get(callerOf(request));
  }

  /**
   * Renames the organisation or changes its settings and limits (owners and admins). Platform
   * admins change any organisation (`organisationId`), and they alone its storage quota and request
   * rate; the first storage quota counts what the store holds in every bucket, before the answer.
   * @summary Change the organisation
   * @param organisationId Platform admins: the organisation to change (default: your own).
   */
  @Patch()
  @Response<ProblemDocument>(502, 'The object store did not answer (backend_unavailable)')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such organisation (organisation_not_found)')
  @Response<ProblemDocument>(409, 'The name is taken (organisation_name_taken)')
  public async updateOrganisation(
    @Body() body: UpdateOrganisationRequest,
    @Request() request: ExpressRequest,
    @Query() organisationId?: string,
  ): Promise<OrganisationView> {
    return this.services.organisation.update(callerOf(request), body, organisationId);
  }

  /**
   * The organisation's members with their roles.
   * @summary List members
   */
  @Get('members')
  @Produces(JSON_MEDIA_TYPE)
  public async listMembers(
    @Request() request: ExpressRequest,
    @Query() limit?: PageSize,
    @Query() cursor?: string,
  ): Promise<MemberPage> {
    return this.services.organisation.members(callerOf(request), { limit, cursor });
  }

  /**
   * Invites a person by e-mail with a role (owners and admins; only owners invite owners). The
   * invitation token is returned this once, with its expiry.
   * @summary Invite a member
   */
  @Post('members')
  @SuccessResponse(201, 'Invitation issued', JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(409, 'The person already belongs to an organisation (already_member)')
  public async inviteMember(
    @Body() body: InviteMemberRequest,
    @Request() request: ExpressRequest,
  ): Promise<InvitationResponse> {
    return this.services.organisation.invite(callerOf(request), body);
  }

  /**
   * Changes a member's role (owners and admins; only owners make or unmake owners). The last owner
   * cannot be demoted.
   * @summary Change a member's role
   */
  @Patch('members/{userId}')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such member (member_not_found)')
  @Response<ProblemDocument>(409, 'The last owner cannot be demoted (last_owner)')
  public async changeMemberRole(
    @Path() userId: string,
    @Body() body: ChangeRoleRequest,
    @Request() request: ExpressRequest,
  ): Promise<MemberView> {
    return this.services.organisation.changeRole(callerOf(request), userId, body.role);
  }

  /**
   * Removes a member and ends their sessions. The last owner cannot be removed.
   * @summary Remove a member
   */
  @Delete('members/{userId}')
  @SuccessResponse(204, 'Member removed')
  @Response<ProblemDocument>(404, 'No such member (member_not_found)')
  @Response<ProblemDocument>(409, 'The last owner cannot be removed (last_owner)')
  public async removeMember(@Path() userId: string, @Request() request: ExpressRequest): Promise<void> {
    await this.services.organisation.remove(callerOf(request), userId);
  }

  /**
   * Issues a one-time password-reset token for a member (owners and admins), returned this once. The
   * member sets a new password with it at POST /v1/auth/password-reset.
   * @summary Issue a password-reset token
   */
  @Post('members/{userId}/password-reset')
  @SuccessResponse(201, 'Token issued', JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such member (member_not_found)')
  public async issueMemberPasswordReset(
    @Path() userId: string,
    @Request() request: ExpressRequest,
  ): Promise<OneTimeToken> {
    return this.services.organisation.issuePasswordReset(callerOf(request), userId);
  }

  /**
   * Metered storage usage per bucket and per credential over [from, to) (owners and admins), the
   * storage held now against the quotas, and the request rate limits with the requests they
   * refused. The window defaults to the last 30 days and spans at most 366 days.
   * @summary Get usage
   * @param organisationId Platform admins: the organisation to report on (default: your own).
   */
  @Get('usage')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(404, 'No such organisation (organisation_not_found)')
  public async getUsage(
    @Request() request: ExpressRequest,
    @Query() from?: Date,
    @Query() to?: Date,
    @Query() organisationId?: string,
  ): Promise<UsageReport> {
    return this.services.organisation.usage(callerOf(request), { from, to }, organisationId);
  }

  /**
   * Who did what in the control plane, newest first (owners and admins).
   * @summary Get the audit log
   */
  @Get('audit-log')
  @Produces(JSON_MEDIA_TYPE)
  public async getAuditLog(
    @Request() request: ExpressRequest,
    @Query() limit?: PageSize,
    @Query() cursor?: string,
  ): Promise<AuditPage> {
    return this.services.organisation.auditLog(callerOf(request), { limit, cursor });
  }
}
