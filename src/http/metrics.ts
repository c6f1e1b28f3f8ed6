import type { FastifyRequest } from 'fastify';
import { hashSecret, secretMatches } from '../auth/keys.ts';
import type { ServiceDeps } from '../deps.ts';
import { AppError } from '../errors.ts';
import {
  dbPoolConnections,
  httpRequestDuration,
  metricsRegistry,
  projectionEventsApplied,
  projectionLagEvents,
  projectionLagSeconds,
  projectionState,
} from '../metrics-registry.ts';
import { type OperatorState, projectionReports } from '../projection/status-admin.ts';
import { bearerToken } from './access-hook.ts';
import type { ZodApp } from './routes.ts';

const STATES: OperatorState[] = ['running', 'catching_up', 'rebuilding', 'failed', 'not_started'];
const installed = new WeakSet<object>();

/** Times every request of the app into the duration histogram, labelled by route template, not raw URL. */
export function installHttpMetrics(app: ZodApp): void {
  if (installed.has(app)) return;
  installed.add(app);
  app.addHook('onResponse', async (request, reply) => {
    httpRequestDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
}

/**
 * With METRICS_TOKEN set, /metrics wants `Authorization: Bearer <METRICS_TOKEN>`. Compared as an API
 * key's secret is, hashed first: timing-safe whatever the length of what was sent.
 */
export function checkMetricsToken(request: FastifyRequest, token: string | undefined): void {
  if (!token) return;
  const presented = bearerToken(request.headers.authorization);
  if (presented !== undefined && secretMatches(presented, hashSecret(token))) return;
  throw new AppError('unauthorized', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>".', {
    headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
  });
}

/** Reads every projection's lag and state from the database, then renders the registry. */
export async function renderMetrics(deps: ServiceDeps): Promise<string> {
  const projections = [...deps.projections.runners.values()].map((r) => r.projection);
  try {
    const reports = await projectionReports(deps.store, deps.pool, projections, { auditLimit: 0 });
    for (const report of reports) {
      const projection = report.name;
      projectionLagEvents.set({ projection }, report.lag.events);
      projectionLagSeconds.set({ projection }, report.lag.seconds);
      projectionEventsApplied.set({ projection }, report.eventsApplied);
      for (const state of STATES) projectionState.set({ projection, state }, report.state === state ? 1 : 0);
    }
  } catch (error) {
    // The process metrics still help when the database does not answer; the gauges keep their last values.
    deps.logger.error({ err: error }, 'projection metrics could not be read');
  }
  // Callers waiting for a connection: requests on one pool, projections and workers on the other.
  const pools = { requests: deps.pool, background: deps.backgroundPool ?? deps.pool };
  for (const [pool, { totalCount, idleCount, waitingCount }] of Object.entries(pools)) {
    dbPoolConnections.set({ pool, state: 'total' }, totalCount);
    dbPoolConnections.set({ pool, state: 'idle' }, idleCount);
    dbPoolConnections.set({ pool, state: 'waiting' }, waitingCount);
  }
  return metricsRegistry.metrics();
}
