import { type PROVIDER_VARIABLES, unconfigured } from '../../../services/search/adapters.ts';
import { cachedLookup, type Lookup, type SearchDeps } from '../../../services/search/lookup.ts';
import { profileHandle } from '../../../src/clients/linkedin-provider.ts';
import { ProviderError } from '../../../src/clients/provider-http.ts';
import { domainField } from '../../../src/domain/search/schemas.ts';
import type { ExecutionOutcome, Executor, ExecutorContext } from '../executor.ts';
import { failed, since, succeeded } from './outcome.ts';
import { RowTemplates } from './render.ts';

type Fields = Record<string, string>;
type Asked = { ok: true; lookup: Lookup<unknown> } | { ok: false; outcome: ExecutionOutcome };

/** The config's template fields filled from the row (no secrets: they would go to the provider). */
async function fieldsOf(context: ExecutorContext, names: readonly string[]) {
  const templates = new RowTemplates(context, { secrets: false });
  const fields: Fields = {};
  for (const name of names) {
    const template = context.column.config[name];
    if (typeof template !== 'string') continue;
    const rendered = await templates.text(template);
    if (!rendered.ok) return failed(rendered.error.code, rendered.error.message);
    const value = rendered.value.trim();
    if (value === '') return failed('missing_input', `${name} is empty for this row (${template})`);
    fields[name] = value;
  }
  return fields;
}

const invalid = (message: string): Asked => ({ ok: false, outcome: failed('invalid_input', message) });

/** A domain cell as the provider takes it, or the row's error. */
function domainOf(fields: Fields): { ok: true; domain?: string } | { ok: false; asked: Asked } {
  if (fields.domain === undefined) return { ok: true };
  const parsed = domainField.safeParse(fields.domain);
  return parsed.success
    ? { ok: true, domain: parsed.data }
    : { ok: false, asked: invalid(`domain ${JSON.stringify(fields.domain)} is not a domain`) };
}

/**
 * One search provider as a column provider: the row's question from its config, then the
 * organization's cached answer or the provider's (a cached row is marked so, and the run charges
 * nothing for it). A provider's failure is the row's error, under the code the API would answer.
 */
function searchExecutor(
  search: SearchDeps | undefined,
  which: keyof typeof PROVIDER_VARIABLES,
  fieldNames: readonly string[],
  ask: (fields: Fields, search: SearchDeps, config: Readonly<Record<string, unknown>>) => Asked,
): Executor {
  return async (context) => {
    if (!search?.adapters[which]) return failed('provider_unavailable', unconfigured(which));
    const fields = await fieldsOf(context, fieldNames);
    if ('ok' in fields) return fields as ExecutionOutcome;
    const asked = ask(fields, search, context.column.config);
    if (!asked.ok) return asked.outcome;
    const started = context.now();
    const tally = { attempts: 0 };
    const meta = () => ({ durationMs: since(started, context.now()), attempts: tally.attempts });
    try {
      const { value, cached } = await cachedLookup(
        search,
        context.organizationId,
        context.now,
        asked.lookup,
        {
          signal: context.signal,
          tally,
        },
      );
      return succeeded(value ?? null, { ...meta(), ...(cached ? { cached: true } : {}) });
    } catch (error) {
      if (error instanceof ProviderError) return failed(error.code, error.message, meta());
      throw error;
    }
  };
}

/** The first match, or null: a lookup fills its cell with one record. */
const first = <T>(found: Promise<T[]>) => found.then((all) => all[0] ?? null);

/** web_search, company_lookup, person_lookup and linkedin_profile: absent `search`, each unavailable. */
export function searchExecutors(search: SearchDeps | undefined) {
  return {
    web_search: searchExecutor(search, 'web', ['query'], (fields, s, config) => {
      const web = s.adapters.web!;
      const request = {
        query: fields.query!,
        category: config.category === 'news' ? ('news' as const) : ('general' as const),
        limit: typeof config.limit === 'number' ? config.limit : 5,
        ...(typeof config.language === 'string' ? { language: config.language } : {}),
        ...(typeof config.timeRange === 'string' ? { timeRange: config.timeRange as 'day' } : {}),
      };
      const operation = request.category === 'news' ? 'news_search' : 'web_search';
      return {
        ok: true,
        lookup: { operation, provider: web.name, request, call: (o) => web.search(request, o) },
      };
    }),
    company_lookup: searchExecutor(search, 'peopleData', ['domain', 'name', 'query'], (fields, s) => {
      const people = s.adapters.peopleData!;
      const domain = domainOf(fields);
      if (!domain.ok) return domain.asked;
      const request = { ...fields, ...(domain.domain ? { domain: domain.domain } : {}), limit: 1 };
      const call = (o: object) => first(people.companies(request, o));
      return { ok: true, lookup: { operation: 'company_lookup', provider: people.name, request, call } };
    }),
    person_lookup: searchExecutor(
      search,
      'peopleData',
      ['linkedinUrl', 'name', 'company', 'domain', 'query'],
      (fields, s) => {
        const people = s.adapters.peopleData!;
        const domain = domainOf(fields);
        if (!domain.ok) return domain.asked;
        const request = { ...fields, ...(domain.domain ? { domain: domain.domain } : {}), limit: 1 };
        const call = (o: object) => first(people.people(request, o));
        return { ok: true, lookup: { operation: 'person_lookup', provider: people.name, request, call } };
      },
    ),
    linkedin_profile: searchExecutor(search, 'linkedin', ['profile'], (fields, s) => {
      const linkedin = s.adapters.linkedin!;
      const handle = profileHandle(fields.profile!);
      if (handle === undefined) return invalid(`${fields.profile} is not a LinkedIn handle nor profile URL`);
      const lookup: Lookup<unknown> = {
        operation: 'linkedin_profile',
        provider: linkedin.name,
        request: { handle },
        call: (o) => linkedin.profile(handle, o),
      };
      return { ok: true, lookup };
    }),
  };
}
