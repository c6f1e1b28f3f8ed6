import { type FakeProvider, startFakeProvider } from './fake-provider.ts';
import { sendJson } from './loopback-http.ts';

/** People Data Labs' error body (v5). */
export const pdlError = (status: number, type: string, message: string) => ({
  status,
  error: { type, message },
});

// biome-ignore lint/suspicious/noExplicitAny: records are PDL's JSON, picked apart by the fake
type Record = { [field: string]: any };

/** A company record as PDL's company schema has it (the fields this service reads, and some it does not). */
export const pdlCompany = (name: string, website: string, extra: Record = {}): Record => ({
  id: `pdl-${name}`,
  name: name.toLowerCase(),
  display_name: name,
  website,
  linkedin_url: `linkedin.com/company/${name.toLowerCase()}`,
  industry: 'computer software',
  size: '51-200',
  employee_count: 120,
  founded: 2015,
  location: { name: 'berlin, germany', country: 'germany' },
  summary: `${name} makes software`,
  tags: ['saas'],
  ...extra,
});

export const pdlPerson = (
  fullName: string,
  company: string,
  website: string,
  extra: Record = {},
): Record => ({
  id: `pdl-${fullName}`,
  full_name: fullName.toLowerCase(),
  first_name: fullName.split(' ')[0]!.toLowerCase(),
  job_title: 'head of sales',
  job_company_name: company.toLowerCase(),
  job_company_website: website,
  linkedin_url: `linkedin.com/in/${fullName.toLowerCase().replace(/\s+/g, '-')}`,
  location_name: 'berlin, germany',
  work_email: true,
  ...extra,
});

/** Does a record match PDL's Elasticsearch query as this service builds them (match/term/bool.should)? */
function matches(record: Record, query: Record): boolean {
  if (query.bool?.should) return query.bool.should.some((q: Record) => matches(record, q));
  const [kind] = Object.keys(query);
  const [field, value] = Object.entries(query[kind!] as Record)[0] as [string, string];
  const actual = String(record[field!] ?? '').toLowerCase();
  return kind === 'term'
    ? actual === String(value).toLowerCase()
    : actual.includes(String(value).toLowerCase());
}

/**
 * People Data Labs' API v5 on loopback: the key in `X-Api-Key` (401 in its format otherwise),
 * company and person enrichment (`GET /v5/{company,person}/enrich`, 404 when nothing matches) and
 * search (`POST /v5/{company,person}/search` with an Elasticsearch `query` and `size`).
 */
export async function startFakePeopleData(
  apiKey: string,
  data: { companies?: Record[]; people?: Record[] } = {},
): Promise<FakeProvider> {
  const notFound = pdlError(404, 'not_found', 'No records were found matching your request');
  return startFakeProvider(
    (req, res) => {
      if (req.headers['x-api-key'] === apiKey) return true;
      sendJson(
        res,
        401,
        pdlError(401, 'authentication_error', `Invalid API key ${req.headers['x-api-key']}`),
      );
      return false;
    },
    (req, res, url) => {
      const companies = data.companies ?? [];
      const people = data.people ?? [];
      const p = url.searchParams;
      if (req.method === 'GET' && url.pathname === '/v5/company/enrich') {
        const found = companies.find((c) =>
          p.has('website') ? c.website === p.get('website') : c.name === p.get('name')?.toLowerCase(),
        );
        return found
          ? sendJson(res, 200, { status: 200, likelihood: 9, ...found })
          : sendJson(res, 404, notFound);
      }
      if (req.method === 'GET' && url.pathname === '/v5/person/enrich') {
        const found = people.find((x) =>
          p.has('profile')
            ? p.get('profile')!.includes(x.linkedin_url)
            : x.full_name === p.get('name')?.toLowerCase() &&
              x.job_company_name === p.get('company')?.toLowerCase(),
        );
        return found
          ? sendJson(res, 200, { status: 200, likelihood: 8, data: found })
          : sendJson(res, 404, notFound);
      }
      const search = /^\/v5\/(company|person)\/search$/.exec(url.pathname);
      if (req.method === 'POST' && search) {
        const body = JSON.parse(req.body || '{}');
        if (!body.query || typeof body.size !== 'number')
          return sendJson(res, 400, pdlError(400, 'invalid_request_error', 'query and size are required'));
        const pool = search[1] === 'company' ? companies : people;
        const found = pool.filter((r) => matches(r, body.query)).slice(0, body.size);
        if (found.length === 0) return sendJson(res, 404, notFound);
        return sendJson(res, 200, { status: 200, data: found, total: found.length, scroll_token: 'x$1' });
      }
      sendJson(res, 404, pdlError(404, 'not_found', 'Unknown endpoint'));
    },
  );
}
