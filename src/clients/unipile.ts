import { z } from 'zod';
import type {
  LinkedinDataProvider,
  LinkedinPost,
  LinkedinProfile,
  LinkedinSearchResult,
} from './linkedin-provider.ts';
import {
  type CallOptions,
  callProvider,
  type ProviderEndpoint,
  ProviderError,
  shaped,
} from './provider-http.ts';

const text = z.string().nullish();
const count = z.number().nullish();

const Accounts = z.object({
  items: z.array(z.object({ id: z.string(), type: z.string() })),
});

const Profile = z.object({
  provider_id: z.string(),
  public_identifier: text,
  first_name: text,
  last_name: text,
  headline: text,
  location: text,
  summary: text,
  follower_count: count,
  connections_count: count,
});

const Posts = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      social_id: text,
      text: text,
      share_url: text,
      parsed_datetime: text,
      reaction_counter: count,
      comment_counter: count,
      repost_counter: count,
    }),
  ),
});

const SearchAnswer = z.object({
  items: z.array(
    z.object({
      type: z.string(),
      id: z.string(),
      name: text,
      headline: text,
      location: text,
      profile_url: text,
      public_identifier: text,
    }),
  ),
});

const profileUrl = (handle: string | null | undefined) =>
  handle ? `https://www.linkedin.com/in/${encodeURIComponent(handle)}` : null;

const profileOf = (p: z.output<typeof Profile>): LinkedinProfile => ({
  id: p.provider_id,
  handle: p.public_identifier ?? null,
  firstName: p.first_name ?? null,
  lastName: p.last_name ?? null,
  headline: p.headline ?? null,
  location: p.location ?? null,
  summary: p.summary ?? null,
  url: profileUrl(p.public_identifier),
  followerCount: p.follower_count ?? null,
  connectionsCount: p.connections_count ?? null,
});

const postOf = (p: z.output<typeof Posts>['items'][number]): LinkedinPost => ({
  id: p.social_id ?? p.id,
  text: p.text ?? '',
  url: p.share_url ?? null,
  publishedAt: p.parsed_datetime ?? null,
  reactions: p.reaction_counter ?? 0,
  comments: p.comment_counter ?? 0,
  reposts: p.repost_counter ?? 0,
});

const resultOf = (r: z.output<typeof SearchAnswer>['items'][number]): LinkedinSearchResult => ({
  type: r.type === 'COMPANY' ? 'company' : 'person',
  id: r.id,
  name: r.name ?? '',
  headline: r.headline ?? null,
  location: r.location ?? null,
  url: r.profile_url ?? null,
  handle: r.public_identifier ?? null,
});

/**
 * Unipile's LinkedIn API (developer.unipile.com, v1; key in `X-API-KEY`, base URL the account's
 * DSN): every call acts as one connected LinkedIn account, `accountId` when configured, else the first
 * LinkedIn account `GET /api/v1/accounts` lists. Profiles are `GET /api/v1/users/{identifier}`, posts
 * `GET /api/v1/users/{provider_id}/posts`, searches `POST /api/v1/linkedin/search` (classic API).
 */
export function unipile(endpoint: ProviderEndpoint, accountId?: string): LinkedinDataProvider {
  let account: Promise<string> | undefined;
  const listAccounts = async (options?: CallOptions) => {
    const answer = await callProvider(endpoint, { path: 'api/v1/accounts' }, options);
    if (answer.status === 404)
      throw new ProviderError('provider_error', `${endpoint.name} answered HTTP 404`);
    return shaped(Accounts, answer, endpoint).items.filter((a) => a.type.toUpperCase() === 'LINKEDIN');
  };
  const accountOf = (options?: CallOptions): Promise<string> => {
    if (accountId) return Promise.resolve(accountId);
    account ??= listAccounts(options).then((linked) => {
      const first = linked[0];
      if (!first) {
        throw new ProviderError(
          'provider_unavailable',
          `No LinkedIn account is connected at ${endpoint.name}: connect one, or set LINKEDIN_DATA_ACCOUNT_ID`,
        );
      }
      return first.id;
    });
    // A failure is not remembered: the next call asks again.
    account.catch(() => {
      account = undefined;
    });
    return account;
  };
  const profile = async (handle: string, options?: CallOptions) => {
    const answer = await callProvider(
      endpoint,
      {
        path: `api/v1/users/${encodeURIComponent(handle)}`,
        query: { account_id: await accountOf(options) },
      },
      options,
    );
    return answer.status === 404 ? null : profileOf(shaped(Profile, answer, endpoint));
  };
  return {
    name: 'unipile',
    async status(options) {
      try {
        const linked = await listAccounts(options);
        return { reachable: true, connectedAccounts: linked.length };
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        return { reachable: false, problem: { code: error.code, detail: error.message } };
      }
    },
    async search(query, options) {
      const answer = await callProvider(
        endpoint,
        {
          path: 'api/v1/linkedin/search',
          method: 'POST',
          query: { account_id: await accountOf(options), limit: query.limit },
          body: { api: 'classic', category: query.type, keywords: query.query },
        },
        options,
      );
      if (answer.status === 404) return [];
      return shaped(SearchAnswer, answer, endpoint).items.slice(0, query.limit).map(resultOf);
    },
    profile,
    async posts(handle, limit, options) {
      const found = await profile(handle, options);
      if (!found) return null;
      const answer = await callProvider(
        endpoint,
        {
          path: `api/v1/users/${encodeURIComponent(found.id)}/posts`,
          query: { account_id: await accountOf(options), limit },
        },
        options,
      );
      if (answer.status === 404) return [];
      return shaped(Posts, answer, endpoint).items.slice(0, limit).map(postOf);
    },
  };
}
