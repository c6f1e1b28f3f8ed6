import { operationsQueries } from '../../queries/operations/index.ts';
import type { Feature } from '../../src/feature.ts';

/**
 * Operations: Prometheus metrics (registering it starts the request-duration histogram of every
 * route, so it comes first in app/modules.ts). Projection status, rebuilds and the event log are the
 * operator's `stk admin`, over the kernel.
 */
export const operationsFeature: Feature = {
  name: 'operations',
  streams: [],
  commands: [],
  queries: operationsQueries,
  projections: [],
};
