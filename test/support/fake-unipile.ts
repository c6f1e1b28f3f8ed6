import { type FakeProvider, startFakeProvider } from './fake-provider.ts';
import { sendJson } from './loopback-http.ts';

/** Unipile's error body: a problem with its own `type`. */
export const unipileError = (status: number, type: string, title: string) => ({ status, type, title });

export interface UnipileProfile {
  provider_id: string;
  public_identifier: string;
  first_name: string;
  last_name: string;
  headline?: string;
  location?: string;
}

export const someProfile = (handle: string): UnipileProfile => ({
  provider_id: `ACoAA${handle.toUpperCase()}`,
  public_identifier: handle,
  first_name: handle,
  last_name: 'Doe',
  headline: `${handle} at Acme`,
  location: 'Berlin',
});

/**
 * Unipile's LinkedIn API (v1) on loopback: `X-API-KEY` checked (401 in its format otherwise), the
 * connected accounts, profiles by public or provider id, a user's posts by provider id, and classic
 * people and company searches; every LinkedIn call needs a known `account_id`.
 */
export async function startFakeUnipile(
  apiKey: string,
  data: { accountId?: string; profiles?: UnipileProfile[]; posts?: Record<string, number> } = {},
): Promise<FakeProvider> {
  const accountId = data.accountId ?? 'acc_linkedin1';
  const profiles = data.profiles ?? [];
  const notFound = unipileError(404, 'errors/resource_not_found', 'Resource not found.');
  return startFakeProvider(
    (req, res) => {
      if (req.headers['x-api-key'] === apiKey) return true;
      sendJson(res, 401, unipileError(401, 'errors/missing_credentials', 'Missing credentials'));
      return false;
    },
    (req, res, url) => {
      if (url.pathname === '/api/v1/accounts') {
        const items = [
          { object: 'Account', id: 'acc_mail1', type: 'GOOGLE_OAUTH', name: 'mail', sources: [] },
          {
            object: 'Account',
            id: accountId,
            type: 'LINKEDIN',
            name: 'Jane',
            sources: [{ id: 's', status: 'OK' }],
          },
        ];
        return sendJson(res, 200, { object: 'AccountList', items, cursor: null });
      }
      if (url.searchParams.get('account_id') !== accountId)
        return sendJson(res, 400, unipileError(400, 'errors/invalid_parameters', 'Invalid account_id'));
      const user = /^\/api\/v1\/users\/([^/]+)(\/posts)?$/.exec(url.pathname);
      if (req.method === 'GET' && user) {
        const id = decodeURIComponent(user[1]!);
        const profile = profiles.find((p) => (user[2] ? p.provider_id === id : p.public_identifier === id));
        if (!profile) return sendJson(res, 404, notFound);
        if (!user[2]) return sendJson(res, 200, { object: 'UserProfile', provider: 'LINKEDIN', ...profile });
        const n = Math.min(
          data.posts?.[profile.public_identifier] ?? 0,
          Number(url.searchParams.get('limit') ?? 100),
        );
        const items = Array.from({ length: n }, (_, i) => ({
          object: 'Post',
          id: `${i}`,
          social_id: `urn:li:activity:${i}`,
          share_url: `https://www.linkedin.com/posts/${profile.public_identifier}-${i}`,
          text: `post ${i} of ${profile.first_name}`,
          parsed_datetime: new Date(Date.UTC(2026, 0, 10 - i)).toISOString(),
          reaction_counter: i,
          comment_counter: 1,
          repost_counter: 0,
        }));
        return sendJson(res, 200, { object: 'PostList', items, cursor: null });
      }
      if (req.method === 'POST' && url.pathname === '/api/v1/linkedin/search') {
        const body = JSON.parse(req.body || '{}');
        if (body.api !== 'classic' || !['people', 'companies'].includes(body.category))
          return sendJson(res, 400, unipileError(400, 'errors/invalid_parameters', 'Invalid search'));
        const keywords = String(body.keywords ?? '').toLowerCase();
        const items =
          body.category === 'people'
            ? profiles
                .filter((p) => `${p.first_name} ${p.headline}`.toLowerCase().includes(keywords))
                .map((p) => ({
                  object: 'SearchResult',
                  type: 'PEOPLE',
                  id: p.provider_id,
                  name: `${p.first_name} ${p.last_name}`,
                  headline: p.headline,
                  location: p.location,
                  profile_url: `https://www.linkedin.com/in/${p.public_identifier}`,
                  public_identifier: p.public_identifier,
                }))
            : [
                {
                  object: 'SearchResult',
                  type: 'COMPANY',
                  id: '1441',
                  name: keywords,
                  location: 'Berlin',
                  profile_url: `https://www.linkedin.com/company/${keywords}`,
                },
              ];
        const limit = Number(url.searchParams.get('limit') ?? 10);
        return sendJson(res, 200, {
          object: 'LinkedinSearch',
          items: items.slice(0, limit),
          paging: { start: 0, page_count: items.length, total_count: items.length },
          cursor: null,
        });
      }
      sendJson(res, 404, notFound);
    },
  );
}
