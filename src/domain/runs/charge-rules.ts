/**
 * Outcomes that mean "nothing to do for this row" rather than a failure: the run shows the cell as
 * skipped and charges nothing for it.
 */
export const SKIP_CODES: ReadonlySet<string> = new Set(['no_route_matched']);

/**
 * Row errors raised before anything was sent or written: nothing was spent on the row, so the run
 * need not charge for it (provider_unavailable and provider_not_implemented above all).
 */
export const NOTHING_DONE_CODES: ReadonlySet<string> = new Set([
  'provider_unavailable',
  'provider_not_implemented',
  'secret_not_found',
  'prompt_not_found',
  'missing_input',
  'invalid_config',
  'invalid_url',
  'invalid_request',
  'target_not_allowed',
  'no_route_matched',
  'invalid_input',
  'template_output_too_large',
]);

/** Why a row the run's reservation did not cover is skipped (at its start, never called). */
export const UNFUNDED = { code: 'insufficient_credits', message: 'the reservation did not cover this row' };
