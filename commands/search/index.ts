import { companySearchRoute, peopleSearchRoute } from './people-search.ts';
import { webSearchRoutes } from './web-search.ts';

export const searchCommands = [...webSearchRoutes, companySearchRoute, peopleSearchRoute];
