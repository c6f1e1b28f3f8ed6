import { PROVIDER_CREDITS } from '../../../src/credits/prices.ts';
import { DEFAULT_CONCURRENCY, httpRequest } from '../../../src/domain/columns/config/http-request.ts';
import { httpRequestExecutor } from '../executors/http-request.ts';
import { columnProvider, configOf } from './provider.ts';

/** http_request: one outside HTTP call per row, as many at once as config.concurrency says. */
export const httpRequestProvider = columnProvider({
  name: 'http_request',
  ...configOf(httpRequest),
  price: () => PROVIDER_CREDITS.http_request,
  concurrency: (config) =>
    typeof config.concurrency === 'number' ? config.concurrency : DEFAULT_CONCURRENCY,
  executor: (deps) => httpRequestExecutor(deps.outbound),
});
