import { getTaskRoute, queryTasksRoute } from './tasks.ts';

export const taskQueries = [queryTasksRoute, getTaskRoute];
