/**
 * The words of the providers' own protocols that the API takes as they are: SearXNG's time ranges
 * and the LinkedIn data provider's search types. Kept apart from the clients, which call out, so that
 * the domain's schemas can name them without importing a client.
 */
export const TIME_RANGES = ['day', 'week', 'month', 'year'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];

export const LINKEDIN_SEARCH_TYPES = ['people', 'companies'] as const;
export type LinkedinSearchType = (typeof LINKEDIN_SEARCH_TYPES)[number];
