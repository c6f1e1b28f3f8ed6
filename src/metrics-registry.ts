import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus metrics, in one registry served at GET /metrics (src/http/metrics.ts).
 * Features count through the small APIs below rather than touching prom-client themselves.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'stk_' });

export const httpRequestDuration = new Histogram({
  name: 'stk_http_request_duration_seconds',
  help: 'HTTP request duration, by method, route template (unmatched for 404s of no route) and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const eventsAppended = new Counter({
  name: 'stk_events_appended_total',
  help: 'Events appended to the event store by this process, by event type',
  labelNames: ['type'] as const,
  registers: [metricsRegistry],
});

export const projectionLagEvents = new Gauge({
  name: 'stk_projection_lag_events',
  help: 'Events the projection applies that are in the log after its checkpoint (events of other types change nothing it shows)',
  labelNames: ['projection'] as const,
  registers: [metricsRegistry],
});

export const projectionLagSeconds = new Gauge({
  name: 'stk_projection_lag_seconds',
  help: 'Age of the oldest event of its types the projection has not applied yet (0 when caught up)',
  labelNames: ['projection'] as const,
  registers: [metricsRegistry],
});

export const projectionState = new Gauge({
  name: 'stk_projection_state',
  help: 'Projection state: 1 for the current state, 0 for the others',
  labelNames: ['projection', 'state'] as const,
  registers: [metricsRegistry],
});

export const projectionEventsApplied = new Gauge({
  name: 'stk_projection_events_applied',
  help: 'Events the live tables of the projection were built from',
  labelNames: ['projection'] as const,
  registers: [metricsRegistry],
});

export const dbPoolConnections = new Gauge({
  name: 'stk_db_pool_connections',
  help: "The service's PostgreSQL pools at the scrape (requests; background: projections and workers): total and idle connections, and callers waiting for one",
  labelNames: ['pool', 'state'] as const,
  registers: [metricsRegistry],
});

const syncItems = new Counter({
  name: 'stk_sync_items_total',
  help: 'Articles a content sync handled, by source (full, named) and result (stored, failed)',
  labelNames: ['source', 'result'] as const,
  registers: [metricsRegistry],
});

const syncErrors = new Counter({
  name: 'stk_sync_errors_total',
  help: 'Isolated content sync failures (an article or a list page), by source and error code',
  labelNames: ['source', 'code'] as const,
  registers: [metricsRegistry],
});

export type SyncSource = 'full' | 'named';

/** What the content sync calls: one call per article stored, one per isolated failure. */
export const syncMetrics = {
  itemStored(source: SyncSource): void {
    syncItems.inc({ source, result: 'stored' });
  },
  /** `article` false: a list page failed (no article to count as failed). */
  itemFailed(source: SyncSource, code: string, article = true): void {
    if (article) syncItems.inc({ source, result: 'failed' });
    syncErrors.inc({ source, code });
  },
};
