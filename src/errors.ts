/**
 * The coded error catalogue. A handler throws `AppError`s; the HTTP layer maps each to one
 * RFC 9457 problem body. Every code has exactly one status, is raised somewhere and is described in
 * docs/errors.md (test/unit/kernel/error-catalogue.test.ts holds all three to it).
 */
export const errorCatalogue = {
  validation_failed: { status: 400, title: 'Request validation failed' },
  malformed_json: { status: 400, title: 'Malformed JSON body' },
  bad_request: { status: 400, title: 'Bad request' },
  idempotency_key_unsupported: { status: 400, title: 'This route does not take an Idempotency-Key' },
  unauthorized: { status: 401, title: 'Authentication required' },
  invalid_credentials: { status: 401, title: 'Wrong email or password' },
  insufficient_credits: { status: 402, title: 'Not enough credits' },
  missing_scope: { status: 403, title: 'Missing scope' },
  scope_not_held: { status: 403, title: 'Cannot grant a scope the key does not hold' },
  forbidden: { status: 403, title: 'Access denied' },
  not_found: { status: 404, title: 'Not found' },
  route_not_found: { status: 404, title: 'Route not found' },
  conflict: { status: 409, title: 'Conflict' },
  email_taken: { status: 409, title: 'Email already registered' },
  last_admin_key: { status: 409, title: "The organization's last key that can manage keys" },
  column_key_taken: { status: 409, title: 'Column key already used in this table' },
  column_in_use: { status: 409, title: 'Column is referenced by other columns' },
  table_in_use: { status: 409, title: 'Table is referenced by columns of other tables' },
  run_in_progress: { status: 409, title: 'The column has a run in progress' },
  column_not_runnable: { status: 409, title: 'The column has no provider to run' },
  invalid_transition: { status: 409, title: 'Not allowed in the current status' },
  sequence_in_use: { status: 409, title: 'Sequence has active enrollments' },
  sync_in_progress: { status: 409, title: 'A full sync is already running' },
  prompt_name_taken: { status: 409, title: 'Prompt template name already used in this organization' },
  prompt_in_use: { status: 409, title: 'Prompt template is referenced by columns' },
  request_timeout: { status: 408, title: 'Request timeout' },
  idempotency_key_in_use: { status: 409, title: 'A request with this Idempotency-Key is in progress' },
  precondition_failed: { status: 412, title: 'Precondition failed' },
  expectation_failed: { status: 417, title: 'Expectation failed' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  render_failed: { status: 422, title: 'The prompt cannot be rendered with these variables' },
  template_output_too_large: { status: 422, title: 'The rendered text would be too large' },
  idempotency_key_reused: { status: 422, title: 'Idempotency-Key reused with another request' },
  rate_limited: { status: 429, title: 'Too many requests' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  internal: { status: 500, title: 'Internal server error' },
  provider_failed: { status: 502, title: 'The outside service failed to answer' },
  unavailable: { status: 503, title: 'Service unavailable' },
  provider_unavailable: { status: 503, title: 'The outside service this needs is not configured' },
  provider_rate_limited: { status: 429, title: 'The outside provider asks to slow down' },
  provider_error: { status: 502, title: 'The outside provider failed' },
  provider_bad_response: { status: 502, title: 'The outside provider answered something unreadable' },
  provider_timeout: { status: 504, title: 'The outside provider did not answer in time' },
  provider_rejected: { status: 422, title: 'The outside provider refused the request' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/**
 * Statuses other than its own that an issue's contract spells for a code on one route (docs/errors.md
 * says which route): scheduling a task email without SMTP_URL is a 409, every other unconfigured
 * provider a 503. Nothing else may throw a code with another status.
 */
export const routeStatuses: Partial<Record<ErrorCode, readonly number[]>> = { provider_unavailable: [409] };

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: {
      errors?: FieldError[];
      headers?: Record<string, string>;
      /** Only a status `routeStatuses` allows for this code. */
      status?: number;
      [key: string]: unknown;
    } = {},
  ) {
    super(detail);
    if (extra.status !== undefined && !routeStatuses[code]?.includes(extra.status))
      throw new Error(`${code} is not answered with ${extra.status} anywhere (routeStatuses)`);
    this.status = extra.status ?? errorCatalogue[code].status;
    this.title = errorCatalogue[code].title;
  }
}

/** zod-style issue paths (["config", "runCondition", "children", 1, "value2"]) as `config.runCondition.children[1].value2`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** Whatever was thrown, as an Error (a rejection may carry anything). */
export const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** The `detail` of a validation failure: where, and every path. */
export const invalidDetail = (where: string, errors: readonly FieldError[]) =>
  `Invalid ${where}: ${errors.map((e) => e.path).join(', ')}`;
