import type { CallOptions } from './provider-http.ts';
import type { LinkedinSearchType } from './vocabulary.ts';

export interface LinkedinSearchResult {
  type: 'person' | 'company';
  id: string;
  name: string;
  headline: string | null;
  location: string | null;
  url: string | null;
  /** The public identifier (`janedoe` of linkedin.com/in/janedoe) when the provider gives it. */
  handle: string | null;
}

export interface LinkedinProfile {
  id: string;
  handle: string | null;
  firstName: string | null;
  lastName: string | null;
  headline: string | null;
  location: string | null;
  summary: string | null;
  url: string | null;
  followerCount: number | null;
  connectionsCount: number | null;
}

export interface LinkedinPost {
  id: string;
  text: string;
  url: string | null;
  publishedAt: string | null;
  reactions: number;
  comments: number;
  reposts: number;
}

export interface LinkedinProviderStatus {
  reachable: boolean;
  /** Why not, when it is not (a code and a sentence, never the provider's own words about a key). */
  problem?: { code: string; detail: string };
  /** LinkedIn accounts connected at the provider. */
  connectedAccounts?: number;
}

/**
 * A LinkedIn data provider as this service needs it. We do not scrape: an operator connects an
 * account at a provider that does it within its own terms. One implementation: Unipile (./unipile.ts).
 */
export interface LinkedinDataProvider {
  readonly name: string;
  status(options?: CallOptions): Promise<LinkedinProviderStatus>;
  search(
    query: { query: string; type: LinkedinSearchType; limit: number },
    options?: CallOptions,
  ): Promise<LinkedinSearchResult[]>;
  /** null: no such profile. */
  profile(handle: string, options?: CallOptions): Promise<LinkedinProfile | null>;
  /** null: no such profile. */
  posts(handle: string, limit: number, options?: CallOptions): Promise<LinkedinPost[] | null>;
}

/**
 * A profile's handle from what a caller gives: `janedoe`, `linkedin.com/in/janedoe/`, a full URL with
 * a query, or a provider id (`ACoAAB…`) as it is. Undefined for a URL that names no profile.
 */
export function profileHandle(handleOrUrl: string): string | undefined {
  const given = handleOrUrl.trim();
  if (!/linkedin\.com/i.test(given) && !given.includes('/')) return given === '' ? undefined : given;
  const match = /^(?:https?:\/\/)?(?:[\w-]+\.)?linkedin\.com\/in\/([^/?#]+)/i.exec(given);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}
