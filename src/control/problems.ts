/**
 * Every problem the control plane answers with (RFC 9457 problem+json): the stable machine-readable
 * `code`, its HTTP status and its title. Clients switch on `code`; `detail` explains the instance.
 */
export const PROBLEMS = {
  validation_failed: { status: 400, title: 'The request is not valid' },
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  malformed_request: { status: 400, title: 'The request is not well-formed HTTP' },
  invitation_invalid: { status: 400, title: 'The invitation is unknown, used or expired' },
  reset_token_invalid: { status: 400, title: 'The password-reset token is unknown, used or expired' },
  current_password_incorrect: { status: 400, title: 'The current password is not correct' },

  unauthenticated: { status: 401, title: 'An access token is required' },
  token_invalid: { status: 401, title: 'The access token is not valid' },
  token_expired: { status: 401, title: 'The access token has expired' },
  session_ended: { status: 401, title: 'The session has ended' },
  storage_credentials_not_accepted: {
    status: 401,
    title: 'Storage credentials are not accepted by the control plane',
  },
  invalid_credentials: { status: 401, title: 'The e-mail address or password is not correct' },
  refresh_token_missing: { status: 401, title: 'No refresh cookie was sent' },
  refresh_token_invalid: { status: 401, title: 'The refresh token is not valid' },
  refresh_token_reused: { status: 401, title: 'The refresh token was already used; the session is ended' },

  forbidden: { status: 403, title: 'Your role does not allow this' },
  platform_admin_required: { status: 403, title: 'Only platform admins may do this' },
  no_organisation: { status: 403, title: 'You are not a member of any organisation' },
  account_suspended: { status: 403, title: 'The account is suspended' },
  credential_expired: { status: 403, title: 'The credential has expired' },
  credential_scope_insufficient: { status: 403, title: "The credential's scope does not cover this request" },

  not_found: { status: 404, title: 'No such endpoint' },
  member_not_found: { status: 404, title: 'No such member in your organisation' },
  session_not_found: { status: 404, title: 'No such session' },
  organisation_not_found: { status: 404, title: 'No such organisation' },
  credential_not_found: { status: 404, title: 'No such credential in your organisation' },
  bucket_not_found: { status: 404, title: 'No such bucket in your organisation' },

  already_member: { status: 409, title: 'The person already belongs to an organisation' },
  last_owner: { status: 409, title: 'The organisation must keep at least one owner' },
  organisation_name_taken: { status: 409, title: 'The organisation name is taken' },
  bucket_name_taken: { status: 409, title: 'The bucket name is taken' },
  bucket_not_empty: { status: 409, title: 'The bucket is not empty' },

  request_timeout: { status: 408, title: 'The request did not arrive in time' },
  payload_too_large: { status: 413, title: 'The request body is too large' },
  unsupported_media_type: { status: 415, title: 'The request body must be application/json' },
  rate_limited: { status: 429, title: 'Too many attempts' },
  headers_too_large: { status: 431, title: 'The request line and headers are too large' },

  internal_error: { status: 500, title: 'Internal error' },
  backend_unavailable: { status: 502, title: 'The object store did not answer' },
  database_unavailable: { status: 503, title: 'The database did not answer' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEMS;

/** One named bad field of a validation problem. */
export interface FieldError {
  field: string;
  message: string;
}

/** The problem+json body (RFC 9457) with this service's extensions. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  /** Every bad field, for validation problems. */
  errors?: FieldError[];
  /** Echoes the `x-request-id` response header, for support requests. */
  requestId?: string;
}

function problemType(code: ProblemCode): string {
  return `urn:s3-gateway:problem:${code}`;
}

/** Thrown by services and middleware; the error handler turns it into problem+json. */
export class ProblemError extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  /** Response headers that belong with the problem (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    code: ProblemCode,
    detail?: string,
    options: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail ?? PROBLEMS[code].title);
    this.name = 'ProblemError';
    this.code = code;
    this.status = PROBLEMS[code].status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  toDocument(requestId?: string): ProblemDocument {
    return {
      type: problemType(this.code),
      title: PROBLEMS[this.code].title,
      status: this.status,
      detail: this.message,
      code: this.code,
      ...(this.errors === undefined ? {} : { errors: this.errors }),
      ...(requestId === undefined ? {} : { requestId }),
    };
  }
}

/** A validation problem naming every bad field. */
export function validationProblem(errors: FieldError[]): ProblemError {
  const detail = errors.map((error) => `${error.field}: ${error.message}`).join('; ');
  return new ProblemError('validation_failed', detail, { errors });
}

/** A validation problem naming one field. */
export function invalidField(field: string, message: string): ProblemError {
  return validationProblem([{ field, message }]);
}

/** The answer when the object store did not complete an operation the control plane asked of it. */
export function backendUnavailable(): ProblemError {
  return new ProblemError('backend_unavailable', 'The object store did not complete the operation.');
}

/** The answer while the database does not answer: the control plane can do nothing without it. */
export function databaseUnavailable(): ProblemError {
  return new ProblemError(
    'database_unavailable',
    'The gateway cannot reach its database. Retry after a few seconds.',
    { headers: { 'Retry-After': '5' } },
  );
}
