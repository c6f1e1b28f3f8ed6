import { metricsRoute } from './metrics.ts';

export const operationsQueries = [metricsRoute];
