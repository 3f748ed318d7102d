import type { Request as ExpressRequest } from 'express';
import {
  Body,
  Controller,
  Delete,
  Get,
  Patch,
  Path,
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
  ChangePasswordRequest,
  Me,
  MyOrganisation,
  SessionPage,
  UpdateMeRequest,
} from '../models/account.js';
import type { PageSize } from '../models/common.js';
import type { ProblemDocument } from '../problems.js';
import type { ControlServices } from '../services/index.js';

@Route('v1/me')
@Tags('Your account')
@Security('bearer')
@Response<ProblemDocument>(
  401,
  'No, an invalid or an expired access token, an ended session, or a storage credential (unauthenticated, token_invalid, token_expired, session_ended, storage_credentials_not_accepted)',
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
export class AccountController extends Controller {
  constructor(private readonly services: ControlServices) {
    super();
  }

  /**
   * The user the access token belongs to, with their role and whether they are a platform admin.
   * @summary Who am I
   */
  @Get()
  @Produces(JSON_MEDIA_TYPE)
  public async getMe(@Request() request: ExpressRequest): Promise<Me> {
    return this.services.account.me(callerOf(request));
  }

  /**
   * Changes the caller's display name.
   * @summary Change my name
   */
  @Patch()
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(
    400,
    'The request is not valid: `errors` names each bad field (validation_failed), or its body is not JSON (malformed_json)',
  )
  public async updateMe(@Body() body: UpdateMeRequest, @Request() request: ExpressRequest): Promise<Me> {
    return this.services.account.rename(callerOf(request), body.name);
  }

  /**
   * Changes the caller's password; every other session of the caller ends.
   * @summary Change my password
   */
  @Put('password')
  @SuccessResponse(204, 'Password changed')
  @Response<ProblemDocument>(
    400,
    'Wrong current password (current_password_incorrect), or the request is not valid (validation_failed, malformed_json)',
  )
  public async changePassword(
    @Body() body: ChangePasswordRequest,
    @Request() request: ExpressRequest,
  ): Promise<void> {
    await this.services.account.changePassword(callerOf(request), body);
  }

  /**
   * The caller's organisation, with its status (active or suspended).
   * @summary My organisation
   */
  @Get('organisation')
  @Produces(JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(403, 'Not a member of any organisation (no_organisation)')
  public async getMyOrganisation(@Request() request: ExpressRequest): Promise<MyOrganisation> {
    return this.services.account.organisation(callerOf(request));
  }

  /**
   * The caller's active sessions, newest first.
   * @summary My sessions
   */
  @Get('sessions')
  @Produces(JSON_MEDIA_TYPE)
  public async listMySessions(
    @Request() request: ExpressRequest,
    @Query() limit?: PageSize,
    @Query() cursor?: string,
  ): Promise<SessionPage> {
    return this.services.account.sessions(callerOf(request), { limit, cursor });
  }

  /**
   * Ends one of the caller's sessions.
   * @summary End a session
   */
  @Delete('sessions/{sessionId}')
  @SuccessResponse(204, 'Session ended')
  @Response<ProblemDocument>(404, 'No such session of yours (session_not_found)')
  public async endMySession(@Path() sessionId: string, @Request() request: ExpressRequest): Promise<void> {
    await this.services.account.endSession(callerOf(request), sessionId);
  }

  /**
   * Ends every session of the caller, the current one included (log out everywhere).
   * @summary End all my sessions
   */
  @Delete('sessions')
  @SuccessResponse(204, 'All sessions ended')
  public async endAllMySessions(@Request() request: ExpressRequest): Promise<void> {
    await this.services.account.endAllSessions(callerOf(request));
  }
}
