import type { Request as ExpressRequest } from 'express';
import {
  Body,
  Controller,
  Post,
  Produces,
  Request,
  Response,
  Route,
  SuccessResponse,
  Tags,
} from '@tsoa/runtime';
import { JSON_MEDIA_TYPE, PROBLEM_MEDIA_TYPE } from '../http/media-types.js';
import { originOf } from '../auth/caller.js';
import { readRefreshCookie } from '../auth/refresh-cookie.js';
import type {
  AcceptInvitationRequest,
  LoginRequest,
  PasswordResetRequest,
  TokenResponse,
} from '../models/auth.js';
import { ProblemError, type ProblemDocument } from '../problems.js';
import type { ControlServices } from '../services/index.js';
import type { IssuedTokens } from '../services/session-starter.js';

@Route('v1/auth')
@Tags('Authentication')
@Response<ProblemDocument>(
  400,
  'The request is not valid: `errors` names each bad field (validation_failed), or its body is not JSON (malformed_json)',
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
export class AuthController extends Controller {
  constructor(private readonly services: ControlServices) {
    super();
  }

  /**
   * Logs in with e-mail and password. Sets the rotating refresh cookie (HttpOnly, SameSite=Strict,
   * Path=/v1/auth). Rate-limited per address and per account.
   * @summary Log in
   */
  @Post('login')
  @SuccessResponse<{
    /** The rotating refresh cookie gw_refresh (HttpOnly, SameSite=Strict, Path=/v1/auth, Secure over HTTPS). */
    'Set-Cookie': string;
  }>(200, 'Logged in; the refresh cookie is set', JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(401, 'Wrong e-mail address or password (invalid_credentials)')
  @Response<
    ProblemDocument,
    {
      /** Seconds to wait before the next attempt. */
      'Retry-After': string;
    }
  >(429, 'Too many attempts; see Retry-After (rate_limited)')
  public async login(@Body() body: LoginRequest, @Request() request: ExpressRequest): Promise<TokenResponse> {
    return this.#withCookie(request, await this.services.auth.login(body, originOf(request)));
  }

  /**
   * Exchanges the refresh cookie for a new access token and a new refresh cookie. A refresh token
   * presented a second time ends its whole session (reuse detection).
   * @summary Refresh the access token
   */
  @Post('refresh')
  @SuccessResponse<{
    /** The rotating refresh cookie gw_refresh (HttpOnly, SameSite=Strict, Path=/v1/auth, Secure over HTTPS). */
    'Set-Cookie': string;
  }>(200, 'Refreshed; the next refresh cookie replaces the one sent', JSON_MEDIA_TYPE)
  @Response<
    ProblemDocument,
    {
      /** Clears the refresh cookie. */
      'Set-Cookie': string;
    }
  >(
    401,
    'No, an unknown or a reused refresh token, or an ended session (refresh_token_missing, refresh_token_invalid, refresh_token_reused, session_ended)',
  )
  public async refresh(@Request() request: ExpressRequest): Promise<TokenResponse> {
    const origin = originOf(request);
    try {
      return this.#withCookie(request, await this.services.auth.refresh(readRefreshCookie(request), origin));
    } catch (error) {
      if (error instanceof ProblemError) {
        error.headers['Set-Cookie'] = this.services.refreshCookies.cleared(origin);
      }
      throw error;
    }
  }

  /**
   * Ends the session of the refresh cookie and clears the cookie.
   * @summary Log out
   */
  @Post('logout')
  @SuccessResponse<{
    /** Clears the refresh cookie. */
    'Set-Cookie': string;
  }>(204, 'Logged out; the refresh cookie is cleared')
  public async logout(@Request() request: ExpressRequest): Promise<void> {
    const origin = originOf(request);
    await this.services.auth.logout(readRefreshCookie(request), origin);
    this.setHeader('Set-Cookie', this.services.refreshCookies.cleared(origin));
  }

  /**
   * Joins the organisation that issued the invitation (creating the user when new) and logs in.
   * @summary Accept an invitation
   */
  @Post('invitations/accept')
  @SuccessResponse<{
    /** The rotating refresh cookie gw_refresh (HttpOnly, SameSite=Strict, Path=/v1/auth, Secure over HTTPS). */
    'Set-Cookie': string;
  }>(200, 'Joined and logged in; the refresh cookie is set', JSON_MEDIA_TYPE)
  @Response<ProblemDocument>(
    400,
    'Unknown, used or expired invitation (invitation_invalid), or the request is not valid (validation_failed, malformed_json)',
  )
  @Response<ProblemDocument>(401, 'Existing account, wrong password (invalid_credentials)')
  @Response<ProblemDocument>(409, 'The person already belongs to an organisation (already_member)')
  public async acceptInvitation(
    @Body() body: AcceptInvitationRequest,
    @Request() request: ExpressRequest,
  ): Promise<TokenResponse> {
    return this.#withCookie(request, await this.services.auth.acceptInvitation(body, originOf(request)));
  }

  /**
   * Sets a new password with a token issued by an owner or admin; ends all of the user's sessions.
   * @summary Reset a password
   */
  @Post('password-reset')
  @SuccessResponse(204, 'Password changed')
  @Response<ProblemDocument>(
    400,
    'Unknown, used or expired token (reset_token_invalid), or the request is not valid (validation_failed, malformed_json)',
  )
  public async resetPassword(
    @Body() body: PasswordResetRequest,
    @Request() request: ExpressRequest,
  ): Promise<void> {
    await this.services.auth.resetPassword(body, originOf(request));
  }

  #withCookie(request: ExpressRequest, issued: IssuedTokens): TokenResponse {
    const cookie = this.services.refreshCookies.issue(
      issued.refreshToken,
      originOf(request),
      issued.refreshExpiresAt,
    );
    this.setHeader('Set-Cookie', cookie);
    return issued.body;
  }
}
