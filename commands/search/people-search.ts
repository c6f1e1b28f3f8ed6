import { providerLookup } from '../../services/search/lookup.ts';
import {
  CompanySearchAnswer,
  CompanySearchBody,
  PeopleSearchAnswer,
  PeopleSearchBody,
} from '../../src/domain/search/schemas.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** POST /api/search/companies: by free text, domain or name, through the people-data provider. */
export const companySearchRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/search/companies',
    {
      config: { access: 'search:run' },
      schema: {
        operationId: 'searchCompanies',
        tags: ['search'],
        summary: 'Find companies by query, domain or name through the configured people-data provider',
        body: CompanySearchBody,
        response: { 200: CompanySearchAnswer },
      },
    },
    async (request) => {
      const { value, cached, provider } = await providerLookup(deps, request, 'peopleData', (people) => ({
        operation: 'company_lookup',
        request: request.body,
        call: (options) => people.companies(request.body, options),
      }));
      return { results: value, provider, cached };
    },
  );
};

/** POST /api/search/people: by free text, employer domain, name and company, or LinkedIn URL. */
export const peopleSearchRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/search/people',
    {
      config: { access: 'search:run' },
      schema: {
        operationId: 'searchPeople',
        tags: ['search'],
        summary: 'Find people through the configured people-data provider',
        body: PeopleSearchBody,
        response: { 200: PeopleSearchAnswer },
      },
    },
    async (request) => {
      const { value, cached, provider } = await providerLookup(deps, request, 'peopleData', (people) => ({
        operation: 'person_lookup',
        request: request.body,
        call: (options) => people.people(request.body, options),
      }));
      return { results: value, provider, cached };
    },
  );
};
