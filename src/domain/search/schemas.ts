import { z } from 'zod';
import { TIME_RANGES } from '../../clients/vocabulary.ts';
import { LANGUAGE_CODE, oneWayIssues } from './one-way.ts';

export const MAX_LIMIT = 50;
const limit = (byDefault: number) =>
  z.number().int().min(1).max(MAX_LIMIT).default(byDefault).describe(`results wanted, 1-${MAX_LIMIT}`);
const query = z.string().trim().min(1).max(500);

/** `acme.com`, also given as `https://www.acme.com/about`: the host name, lower case. */
export const domainField = z
  .string()
  .trim()
  .max(300)
  .transform(
    (d) =>
      d
        .toLowerCase()
        .replace(/^https?:\/\//, '')
        .replace(/^www\./, '')
        .split(/[/?#]/)[0]!,
  )
  .pipe(
    z
      .string()
      .max(253)
      .regex(/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}$/, 'not a domain'),
  )
  .describe('a company domain, e.g. acme.com');

export const WebSearchBody = z
  .strictObject({
    query,
    limit: limit(10),
    language: z.string().regex(LANGUAGE_CODE, 'a language code such as en or de-CH, or all').optional(),
    timeRange: z.enum(TIME_RANGES).optional(),
  })
  .meta({ id: 'WebSearchRequest' });

const Answer = <T extends z.ZodType>(id: string, result: T) =>
  z
    .object({
      results: z.array(result),
      provider: z.string().describe('the provider that answered'),
      cached: z.boolean().describe('true: from the organization cache, and free'),
    })
    .meta({ id });

export const WebResultSchema = z
  .object({
    title: z.string(),
    url: z.string(),
    snippet: z.string(),
    publishedAt: z.string().optional(),
    source: z.string().describe("the result's host name"),
  })
  .meta({ id: 'WebSearchResult' });
export const WebSearchAnswer = Answer('WebSearchAnswer', WebResultSchema);

/** Exactly one way of asking (./one-way.ts), each issue at the field to fix. */
const oneWay =
  (ways: string[][]) =>
  (body: Record<string, unknown>, ctx: z.core.$RefinementCtx<Record<string, unknown>>) => {
    for (const issue of oneWayIssues(ways, (field) => body[field] !== undefined))
      ctx.addIssue({ code: 'custom', ...issue });
  };

export const CompanySearchBody = z
  .strictObject({
    query: query.optional().describe('free text matched against names, industries and descriptions'),
    domain: domainField.optional(),
    name: z.string().trim().min(1).max(300).optional(),
    limit: limit(10),
  })
  .superRefine(oneWay([['query'], ['domain'], ['name']]))
  .meta({ id: 'CompanySearchRequest', description: 'one of query, domain or name' });

export const PeopleSearchBody = z
  .strictObject({
    query: query.optional().describe('free text matched against names, job titles and employers'),
    domain: domainField.optional().describe("people whose employer's domain this is"),
    name: z.string().trim().min(1).max(300).optional().describe('with company: one person'),
    company: z.string().trim().min(1).max(300).optional(),
    linkedinUrl: z.string().trim().min(1).max(300).optional().describe('one person by LinkedIn profile'),
    limit: limit(10),
  })
  .superRefine(oneWay([['query'], ['domain'], ['name', 'company'], ['linkedinUrl']]))
  .meta({ id: 'PeopleSearchRequest', description: 'one of query, domain, name and company, or linkedinUrl' });

export const CompanySchema = z
  .object({
    name: z.string(),
    domain: z.string().nullable(),
    linkedinUrl: z.string().nullable(),
    industry: z.string().nullable(),
    size: z.string().nullable(),
    employeeCount: z.number().nullable(),
    founded: z.number().nullable(),
    location: z.string().nullable(),
    description: z.string().nullable(),
  })
  .meta({ id: 'CompanyResult' });
export const CompanySearchAnswer = Answer('CompanySearchAnswer', CompanySchema);

export const PersonSchema = z
  .object({
    fullName: z.string(),
    jobTitle: z.string().nullable(),
    companyName: z.string().nullable(),
    companyDomain: z.string().nullable(),
    linkedinUrl: z.string().nullable(),
    location: z.string().nullable(),
    workEmail: z.string().nullable(),
  })
  .meta({ id: 'PersonResult' });
export const PeopleSearchAnswer = Answer('PeopleSearchAnswer', PersonSchema);
