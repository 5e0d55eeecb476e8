/**
 * Zulip's API errors. `code` values and `msg` texts copy Zulip's byte for byte: clients match
 * on them. Throw these anywhere below a route; the error handler turns them into the envelope
 * {result: "error", msg, code, ...data} with the HTTP status.
 */
export type ErrorCode =
  | "BAD_REQUEST"
  | "REQUEST_VARIABLE_MISSING"
  | "REQUEST_CONFUSING_VAR"
  | "UNAUTHORIZED"
  | "UNAUTHENTICATED_USER"
  | "INVALID_API_KEY"
  | "USER_DEACTIVATED"
  | "REALM_DEACTIVATED"
  | "AUTHENTICATION_FAILED"
  | "NONEXISTENT_SUBDOMAIN"
  | "PASSWORD_RESET_REQUIRED"
  | "RATE_LIMIT_HIT"
  | "NOT_FOUND"
  | "BAD_EVENT_QUEUE_ID"
  | "STREAM_DOES_NOT_EXIST"
  | "STREAM_WILDCARD_MENTION_NOT_ALLOWED"
  | "TOPIC_WILDCARD_MENTION_NOT_ALLOWED"
  | "REACTION_ALREADY_EXISTS"
  | "REACTION_DOES_NOT_EXIST"
  | "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED"
  | "BAD_NARROW"
  | "MISSING_AUTHENTICATION"
  | "CSRF_FAILED"
  | "INVALID_PUSH_DEVICE_TOKEN"
  | "INVALID_REMOTE_PUSH_DEVICE_TOKEN"
  | "CANNOT_DEACTIVATE_LAST_USER"
  | "UNAUTHORIZED_PRINCIPAL"
  | "INVALID_JSON"
  | "PASSWORD_AUTH_DISABLED"
  | "CANNOT_DEACTIVATE_GROUP_IN_USE"
  | "INVITATION_FAILED"
  | "UNSUPPORTED_WEBHOOK_EVENT_TYPE"
  | "ANOMALOUS_WEBHOOK_PAYLOAD"
  | "MISSING_HTTP_EVENT_HEADER"
  | "INTERNAL_SERVER_ERROR";

export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly data: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(msg: string, opts: { code?: ErrorCode; status?: number; data?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
    super(msg);
    this.code = opts.code ?? "BAD_REQUEST";
    this.status = opts.status ?? 400;
    this.data = opts.data ?? {};
    this.headers = opts.headers ?? {};
  }
}

/** A plain 400 BAD_REQUEST with Zulip's text. */
export function badRequest(msg: string, data?: Record<string, unknown>): ApiError {
  return new ApiError(msg, { data });
}

export class MissingArgumentError extends ApiError {
  constructor(varName: string) {
    super(`Missing '${varName}' argument`, { code: "REQUEST_VARIABLE_MISSING", data: { var_name: varName } });
  }
}

export class ConfusingArgumentsError extends ApiError {
  constructor(a: string, b: string) {
    super(`Can't decide between '${a}' and '${b}' arguments`, {
      code: "REQUEST_CONFUSING_VAR",
      data: { var_name1: a, var_name2: b },
    });
  }
}

const WWW_AUTHENTICATE = { "WWW-Authenticate": 'Basic realm="zulip"' };

export class UnauthorizedError extends ApiError {
  constructor(msg = "Not logged in: API authentication or user session required") {
    super(msg, { code: "UNAUTHORIZED", status: 401, headers: WWW_AUTHENTICATE });
  }
}

/**
 * Zulip's MissingAuthenticationError: a request without credentials that a visitor (Zulip's
 * spectator) may not make. Thrown by the visitor checks (lib/streamAccess.ts, lib/messageAccess.ts);
 * mount.ts answers it with its surface's 401 (the WWW-Authenticate scheme of /api/v1 or /json).
 */
export class MissingAuthenticationError extends UnauthorizedError {
  constructor() {
    super();
  }
}

export class InvalidApiKeyError extends ApiError {
  constructor() {
    super("Invalid API key", { code: "INVALID_API_KEY", status: 401, headers: WWW_AUTHENTICATE });
  }
}

export class UserDeactivatedError extends ApiError {
  constructor() {
    super("Account is deactivated", { code: "USER_DEACTIVATED", status: 401 });
  }
}

export class RealmDeactivatedError extends ApiError {
  constructor() {
    super("This organization has been deactivated", {
      code: "REALM_DEACTIVATED",
      status: 401,
    });
  }
}

/** Zulip's InvalidSubdomainError: the request's host names no organization of this server. */
export class InvalidSubdomainError extends ApiError {
  constructor() {
    super("Invalid subdomain", { code: "NONEXISTENT_SUBDOMAIN", status: 404 });
  }
}

export class AuthenticationFailedError extends ApiError {
  constructor() {
    super("Your username or password is incorrect", { code: "AUTHENTICATION_FAILED", status: 401 });
  }
}

/** Zulip's PasswordAuthDisabledError: the organization turned the password form's method off. */
export class PasswordAuthDisabledError extends ApiError {
  constructor() {
    super("Password authentication is disabled in this organization.", { code: "PASSWORD_AUTH_DISABLED", status: 401 });
  }
}

export class RateLimitedError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super("API usage exceeded rate limit", {
      code: "RATE_LIMIT_HIT",
      status: 429,
      data: { "retry-after": retryAfterSeconds },
      headers: { "Retry-After": String(Math.ceil(retryAfterSeconds)) },
    });
  }
}

/** An action the user's role does not allow, where Zulip answers with plain BAD_REQUEST. */
export class InsufficientPermissionError extends ApiError {
  constructor(msg = "Insufficient permission") {
    super(msg);
  }
}

export class CannotDeactivateLastUserError extends ApiError {
  constructor(isLastOwner: boolean) {
    const entity = isLastOwner ? "organization owner" : "user";
    super(`Cannot deactivate the only ${entity}.`, {
      code: "CANNOT_DEACTIVATE_LAST_USER",
      data: { is_last_owner: isLastOwner, entity },
    });
  }
}

export class OrganizationAdministratorRequiredError extends ApiError {
  constructor() {
    super("Must be an organization administrator", { code: "UNAUTHORIZED_PRINCIPAL", status: 400 });
  }
}

export class OrganizationOwnerRequiredError extends ApiError {
  constructor() {
    super("Must be an organization owner", { code: "UNAUTHORIZED_PRINCIPAL", status: 400 });
  }
}

/** GET/DELETE /events for a queue this server does not have (expired, deleted, never existed). */
export class BadEventQueueIdError extends ApiError {
  constructor(queueId: string) {
    super(`Bad event queue ID: ${queueId}`, { code: "BAD_EVENT_QUEUE_ID", data: { queue_id: queueId } });
  }
}

// Texts Zulip raises from several places, named once (Zulip's decorators and access helpers).

/** Zulip's @human_users_only. */
export class BotRequestNotAllowedError extends ApiError {
  constructor() {
    super("This endpoint does not accept bot requests.");
  }
}

/** Zulip's @require_member_or_admin, for guests. */
export class GuestNotAllowedError extends ApiError {
  constructor() {
    super("Not allowed for guest users");
  }
}

/** Zulip's access_stream_by_id: the channel does not exist or the user may not have it. */
export class InvalidChannelIdError extends ApiError {
  constructor() {
    super("Invalid channel ID");
  }
}

/**
 * Zulip's InvitationError: POST /invites could not invite some (or any) of the addresses;
 * `errors` lists [email, reason, deactivated] for each one skipped.
 */
export class InvitationFailedError extends ApiError {
  constructor(msg: string, errors: Array<[string, string, boolean]>, opts: { sentInvitations: boolean; dailyLimitReached?: boolean }) {
    super(msg, {
      code: "INVITATION_FAILED",
      data: { errors, sent_invitations: opts.sentInvitations, license_limit_reached: false, daily_limit_reached: opts.dailyLimitReached ?? false },
    });
  }
}

/** A user named in the request is deactivated. */
export class TargetUserDeactivatedError extends ApiError {
  constructor() {
    super("User is deactivated");
  }
}

export class UserGroupDeactivatedError extends ApiError {
  constructor() {
    super("User group is deactivated.");
  }
}

/** A group setting change whose `old` value is not the current one. */
export class OldSettingValueMismatchError extends ApiError {
  constructor() {
    super("'old' value does not match the expected value.");
  }
}

export class MalformedJsonError extends ApiError {
  constructor() {
    super("Malformed JSON");
  }
}

export class BadNameOrUsernameError extends ApiError {
  constructor() {
    super("Bad name or username");
  }
}
