import { z } from 'zod';
import { checkMetricsToken, installHttpMetrics, renderMetrics } from '../../src/http/metrics.ts';
import { noKeyOr } from '../../src/http/openapi.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { metricsRegistry } from '../../src/metrics-registry.ts';

/**
 * GET /metrics in the Prometheus text format. Declared public: with METRICS_TOKEN set it checks its own
 * bearer token (not an API key), so a scraper needs no developer key. Registering it also starts the
 * request-duration histogram for every route of the app.
 */
export const metricsRoute: RouteModule = (app, deps) => {
  installHttpMetrics(app);
  const schema = {
    operationId: 'getMetrics',
    tags: ['operations'],
    // No API key: the METRICS_TOKEN bearer when one is set (src/http/openapi.ts, metricsToken).
    security: noKeyOr('metricsToken'),
    summary: 'Metrics in the Prometheus text format (bearer METRICS_TOKEN when set)',
    response: {
      200: { description: 'The metrics', content: { 'text/plain': { schema: z.string() } } },
    },
  };
  app.get('/metrics', { config: { access: 'public' }, schema }, async (request, reply) => {
    checkMetricsToken(request, deps.config.METRICS_TOKEN);
    const body = await renderMetrics(deps);
    return reply.header('content-type', metricsRegistry.contentType).send(body);
  });
};
