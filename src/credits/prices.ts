/**
 * What running a column costs, per row, in credits: the one table of prices (docs/rows.md shows the
 * same). Estimates read it; runs reserve and settle by it (docs/runs.md).
 */
export const LLM_LANE_CREDITS = { very_fast: 1, fast: 2, balanced: 4, smart: 8 } as const;

/** The llm lanes, cheapest first: the keys of the price table, so a lane cannot lack a price. */
export type LlmLane = keyof typeof LLM_LANE_CREDITS;
export const LLM_LANES = Object.keys(LLM_LANE_CREDITS) as readonly LlmLane[];

/**
 * The lane of an llm column that names none: what it is priced at and the model it runs (the llm
 * executor reads this same constant, so the price and the model cannot disagree).
 */
export const DEFAULT_LLM_LANE: LlmLane = 'balanced';

/**
 * What one uncached call to a search or LinkedIn data provider costs, through the API or as a column's
 * row (docs/search-and-linkedin.md). An answer from the cache costs nothing.
 */
export const SEARCH_CREDITS = {
  web_search: 1,
  news_search: 1,
  company_lookup: 2,
  person_lookup: 2,
  linkedin_search: 2,
  linkedin_profile: 2,
  linkedin_posts: 2,
} as const;

export type SearchOperation = keyof typeof SEARCH_CREDITS;

/**
 * The fixed prices of the providers that have one, read by their entries of the provider registry
 * (processes/runs/providers/), which derives `creditsPerRow`; docs/rows.md shows the same.
 */
export const PROVIDER_CREDITS = {
  /** One outside call per row. */
  http_request: 1,
  /** Writes inside the service: no outside cost. */
  sync_to_table: 0,
  add_to_crm: 0,
  add_to_sequence: 0,
  /** The search and LinkedIn data providers: the price of their call (a cached answer is refunded). */
  web_search: SEARCH_CREDITS.web_search,
  company_lookup: SEARCH_CREDITS.company_lookup,
  person_lookup: SEARCH_CREDITS.person_lookup,
  linkedin_profile: SEARCH_CREDITS.linkedin_profile,
} as const;

/**
 * A provider the registry does not know (a column saved before unknown providers were refused) is
 * priced as one outside call, like http_request.
 */
export const UNKNOWN_PROVIDER_CREDITS = 1;

const HIGHEST_LANE = Math.max(...Object.values(LLM_LANE_CREDITS));

/**
 * Credits per row of an llm column: its lane's price (the default lane's when it names none). A lane
 * this table does not know is priced as the dearest lane, so an estimate never understates.
 */
export function llmCreditsPerRow(config: Readonly<Record<string, unknown>>): number {
  const lane = typeof config.llmLane === 'string' ? config.llmLane : DEFAULT_LLM_LANE;
  return Object.hasOwn(LLM_LANE_CREDITS, lane) ? LLM_LANE_CREDITS[lane as LlmLane] : HIGHEST_LANE;
}
