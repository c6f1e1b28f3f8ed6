import { z } from 'zod';
import { TIME_RANGES } from '../../../clients/vocabulary.ts';
import { LANGUAGE_CODE, oneWayIssues } from '../../search/one-way.ts';
import { templateRefs } from '../references.ts';
import { type Config, type ConfigIssue, type ProviderSpec, runCondition } from './spec.ts';

/**
 * The search providers as column providers (docs/search-and-linkedin.md): each field is a template
 * over the row's cells (`{{company_domain}}`), filled per row. Secrets are not inserted: a query goes
 * to an outside provider and into its cache.
 */
const template = (what: string) =>
  z.string().trim().min(1).max(2000).describe(`${what}; {{column_key}} inserts a row value`);

export const WebSearchConfigSchema = z
  .strictObject({
    provider: z.literal('web_search'),
    query: template('the search query'),
    category: z.enum(['general', 'news']).default('general').describe('news searches news'),
    limit: z.number().int().min(1).max(50).default(5),
    language: z.string().regex(LANGUAGE_CODE, 'a language code such as en or de-CH, or all').optional(),
    timeRange: z.enum(TIME_RANGES).optional(),
    runCondition,
  })
  .meta({ id: 'WebSearchConfig', description: 'config of a column with provider web_search' });

export const CompanyLookupConfigSchema = z
  .strictObject({
    provider: z.literal('company_lookup'),
    domain: template("the company's domain").optional(),
    name: template("the company's name").optional(),
    query: template('free text').optional(),
    runCondition,
  })
  .meta({ id: 'CompanyLookupConfig', description: 'config of a column with provider company_lookup' });

export const PersonLookupConfigSchema = z
  .strictObject({
    provider: z.literal('person_lookup'),
    linkedinUrl: template("the person's LinkedIn profile URL").optional(),
    name: template("the person's full name (with company)").optional(),
    company: template("the person's employer (with name)").optional(),
    domain: template("the employer's domain").optional(),
    query: template('free text').optional(),
    runCondition,
  })
  .meta({ id: 'PersonLookupConfig', description: 'config of a column with provider person_lookup' });

export const LinkedinProfileConfigSchema = z
  .strictObject({
    provider: z.literal('linkedin_profile'),
    profile: template('a LinkedIn handle or profile URL'),
    runCondition,
  })
  .meta({ id: 'LinkedinProfileConfig', description: 'config of a column with provider linkedin_profile' });

/** Exactly one way of asking, as the search API asks it. */
const oneWay =
  (ways: string[][]) =>
  (config: Config): ConfigIssue[] =>
    oneWayIssues(ways, (field) => config[field] !== undefined);

/** Every template field names columns that must exist. */
const fieldRefs = (fields: string[]) => (config: Config) =>
  fields.flatMap((field) => templateRefs(config[field], [field], true));

export const webSearch: ProviderSpec = {
  schema: WebSearchConfigSchema as unknown as z.ZodType<Config>,
  refs: fieldRefs(['query']),
};

export const companyLookup: ProviderSpec = {
  schema: CompanyLookupConfigSchema as z.ZodType<Config>,
  refs: fieldRefs(['domain', 'name', 'query']),
  check: oneWay([['domain'], ['name'], ['query']]),
};

export const personLookup: ProviderSpec = {
  schema: PersonLookupConfigSchema as z.ZodType<Config>,
  refs: fieldRefs(['linkedinUrl', 'name', 'company', 'domain', 'query']),
  check: oneWay([['linkedinUrl'], ['name', 'company'], ['domain'], ['query']]),
};

export const linkedinProfile: ProviderSpec = {
  schema: LinkedinProfileConfigSchema as z.ZodType<Config>,
  refs: fieldRefs(['profile']),
};
