import { getLeadRoute, listLeadsRoute } from './leads.ts';

export const leadQueries = [listLeadsRoute, getLeadRoute];
