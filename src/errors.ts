// Typed service errors: a stable snake_case code, a message that says what to fix, and details.
// They know nothing about HTTP; each surface maps codes to its own framing.

export type ErrorCode =
  | 'validation_failed'
  | 'idempotency_key_required'
  | 'invalid_target'
  | 'unauthenticated'
  | 'audience_mismatch'
  | 'plan_required'
  | 'surface_disabled'
  | 'insufficient_scope'
  | 'brand_not_allowed'
  | 'forbidden'
  | 'spend_ceiling_required'
  | 'spend_ceiling_exceeded'
  | 'not_found'
  | 'idempotency_conflict'
  | 'stale_read'
  | 'conflict'
  | 'capability_unsupported'
  | 'account_ambiguous'
  | 'unprocessable'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable'
  | 'webhooks_unavailable'
  | 'request_timeout'
  | 'timeout';

export interface FieldIssue {
  field: string;
  message: string;
  code?: string;
}

export type ErrorDetails = FieldIssue[] | Record<string, unknown> | null;

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;
  /** Seconds the caller should wait before trying again, where that is known. */
  readonly retryAfter: number | null;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = null, retryAfter: number | null = null) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }
}

/** A 400 `validation_failed` carrying one issue per invalid field. */
export function validationFailed(issues: FieldIssue[], message?: string): ServiceError {
  const text =
    message ??
    (issues.length === 1
      ? `Invalid request: ${issues[0].field ? `${issues[0].field} ` : ''}${issues[0].message}.`
      : `Invalid request: ${issues.length} fields are invalid; see details.`);
  return new ServiceError('validation_failed', text, issues);
}

export function notFound(what: string): ServiceError {
  return new ServiceError('not_found', `${what} was not found.`, null);
}

/** The contract's HTTP status for each code; surfaces that speak HTTP use it. */
export const httpStatusOf: Record<ErrorCode, number> = {
  validation_failed: 400,
  idempotency_key_required: 400,
  invalid_target: 400,
  unauthenticated: 401,
  audience_mismatch: 401,
  plan_required: 403,
  surface_disabled: 403,
  insufficient_scope: 403,
  brand_not_allowed: 403,
  forbidden: 403,
  spend_ceiling_required: 403,
  spend_ceiling_exceeded: 403,
  not_found: 404,
  idempotency_conflict: 409,
  stale_read: 409,
  conflict: 409,
  capability_unsupported: 422,
  account_ambiguous: 422,
  unprocessable: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
  webhooks_unavailable: 503,
  request_timeout: 408,
  timeout: 504,
};

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details: ErrorDetails; requestId: string };
}

/** The contract's error envelope for any thrown value; unexpected errors never show their message. */
export function envelopeOf(err: unknown, requestId: string): ErrorEnvelope {
  const known =
    err instanceof ServiceError
      ? err
      : new ServiceError('internal_error', 'Something went wrong on our side. Retry with backoff; quote the request id if it persists.');
  return { error: { code: known.code, message: known.message, details: known.details, requestId } };
}
