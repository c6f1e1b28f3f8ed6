import { z } from 'zod';
import type { Company, CompanyQuery, PeopleDataProvider, Person, PersonQuery } from './people-data.ts';
import { type CallOptions, callProvider, type ProviderEndpoint, shaped } from './provider-http.ts';

const text = z.string().nullish();
const num = z.number().nullish();

/** People Data Labs' company record (v5), the fields read here; the rest of its schema is ignored. */
const PdlCompany = z.object({
  name: text,
  display_name: text,
  website: text,
  linkedin_url: text,
  industry: text,
  size: text,
  employee_count: num,
  founded: num,
  location: z.object({ name: text }).nullish(),
  summary: text,
});

/** Its person record (v5); `work_email` is `true` on plans that do not show addresses. */
const PdlPerson = z.object({
  full_name: text,
  job_title: text,
  job_company_name: text,
  job_company_website: text,
  linkedin_url: text,
  location_name: text,
  work_email: z.union([z.string(), z.boolean()]).nullish(),
});

const Search = <T extends z.ZodType>(record: T) => z.object({ data: z.array(record) });
const PersonEnrich = z.object({ data: PdlPerson });

const url = (value: string | null | undefined) =>
  value ? (/^https?:\/\//i.test(value) ? value : `https://${value}`) : null;

const company = (c: z.output<typeof PdlCompany>): Company => ({
  name: c.display_name ?? c.name ?? '',
  domain: c.website ?? null,
  linkedinUrl: url(c.linkedin_url),
  industry: c.industry ?? null,
  size: c.size ?? null,
  employeeCount: c.employee_count ?? null,
  founded: c.founded ?? null,
  location: c.location?.name ?? null,
  description: c.summary ?? null,
});

const person = (p: z.output<typeof PdlPerson>): Person => ({
  fullName: p.full_name ?? '',
  jobTitle: p.job_title ?? null,
  companyName: p.job_company_name ?? null,
  companyDomain: p.job_company_website ?? null,
  linkedinUrl: url(p.linkedin_url),
  location: p.location_name ?? null,
  workEmail: typeof p.work_email === 'string' ? p.work_email : null,
});

/** Free text matched against a few fields of the records (an Elasticsearch query, as PDL takes it). */
const anyOf = (query: string, fields: string[]) => ({
  bool: { should: fields.map((field) => ({ match: { [field]: query } })), minimum_should_match: 1 },
});

/**
 * People Data Labs (docs.peopledatalabs.com, API v5, key in `X-Api-Key`): a domain, a name or a
 * LinkedIn URL goes to its enrichment APIs (`GET /v5/company/enrich`, `GET /v5/person/enrich`: the
 * best match), free text and a person's company domain to its search APIs (`POST /v5/.../search`
 * with an Elasticsearch query and `size`). Its 404 means no record matched: an empty answer.
 */
export function peopleDataLabs(endpoint: ProviderEndpoint): PeopleDataProvider {
  const search = async <T extends z.ZodType>(
    path: string,
    query: object,
    size: number,
    record: T,
    options?: CallOptions,
  ) => {
    const answer = await callProvider(endpoint, { path, method: 'POST', body: { query, size } }, options);
    return answer.status === 404 ? [] : shaped(Search(record), answer, endpoint).data;
  };
  return {
    name: 'peopledatalabs',
    async companies(q: CompanyQuery, options?: CallOptions) {
      if (q.query !== undefined) {
        const fields = ['name', 'industry', 'summary'];
        const found = await search('v5/company/search', anyOf(q.query, fields), q.limit, PdlCompany, options);
        return found.map(company);
      }
      const params = q.domain !== undefined ? { website: q.domain } : { name: q.name };
      const answer = await callProvider(endpoint, { path: 'v5/company/enrich', query: params }, options);
      return answer.status === 404 ? [] : [company(shaped(PdlCompany, answer, endpoint))];
    },
    async people(q: PersonQuery, options?: CallOptions) {
      if (q.query !== undefined || q.domain !== undefined) {
        const query =
          q.query !== undefined
            ? anyOf(q.query, ['full_name', 'job_title', 'job_company_name'])
            : { term: { job_company_website: q.domain } };
        return (await search('v5/person/search', query, q.limit, PdlPerson, options)).map(person);
      }
      const params =
        q.linkedinUrl !== undefined ? { profile: q.linkedinUrl } : { name: q.name, company: q.company };
      const answer = await callProvider(endpoint, { path: 'v5/person/enrich', query: params }, options);
      return answer.status === 404 ? [] : [person(shaped(PersonEnrich, answer, endpoint).data)];
    },
  };
}
