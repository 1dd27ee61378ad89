// The service's error codes (CONTRACT.md, "Errors"): which HTTP status and type each one travels with.
// Clients must still accept codes not listed here; the sandbox only ever sends these.

export const ERROR_TYPES = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  conflict_error: 409,
  idempotency_error: 409,
  rate_limit_error: 429,
  api_error: 500,
} as const;
export type ErrorType = keyof typeof ERROR_TYPES;

export const ERROR_CODES = {
  invalid_json: { status: 400, type: 'invalid_request_error' },
  missing_field: { status: 400, type: 'invalid_request_error' },
  invalid_value: { status: 400, type: 'invalid_request_error' },
  unknown_gate: { status: 400, type: 'invalid_request_error' },
  unknown_kind: { status: 400, type: 'invalid_request_error' },
  malformed_request: { status: 400, type: 'invalid_request_error' },
  headers_too_large: { status: 431, type: 'invalid_request_error' },
  method_not_implemented: { status: 501, type: 'invalid_request_error' },
  route_not_found: { status: 404, type: 'not_found_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  request_timeout: { status: 408, type: 'invalid_request_error' },
  body_too_large: { status: 413, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  missing_api_key: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  live_key_in_sandbox: { status: 401, type: 'authentication_error' },
  console_session_invalid: { status: 401, type: 'authentication_error' },
  signed_url_expired: { status: 403, type: 'permission_error' },
  signed_url_invalid: { status: 403, type: 'permission_error' },
  cross_origin_refused: { status: 403, type: 'permission_error' },
  csrf_token_invalid: { status: 403, type: 'permission_error' },
  run_not_found: { status: 404, type: 'not_found_error' },
  webhook_not_found: { status: 404, type: 'not_found_error' },
  delivery_not_found: { status: 404, type: 'not_found_error' },
  fault_not_found: { status: 404, type: 'not_found_error' },
  scorecard_not_ready: { status: 404, type: 'not_found_error' },
  gate_not_pending: { status: 409, type: 'conflict_error' },
  run_not_active: { status: 409, type: 'conflict_error' },
  spec_locked: { status: 409, type: 'conflict_error' },
  artifact_not_ready: { status: 409, type: 'conflict_error' },
  idempotency_key_in_use: { status: 409, type: 'idempotency_error' },
  idempotency_key_reused: { status: 422, type: 'idempotency_error' },
  range_not_satisfiable: { status: 416, type: 'invalid_request_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  unavailable: { status: 503, type: 'api_error' },
} as const satisfies Record<string, { status: number; type: ErrorType }>;
export type ErrorCode = keyof typeof ERROR_CODES;

/** The error envelope's inner object, as the service sends it. */
export interface ErrorBody {
  type: string;
  code: string;
  message: string;
  field?: string;
}
