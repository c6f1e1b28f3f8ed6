import type { Pool } from '../../src/db/pool.ts';

/** Each kind of work item: what waits, what is held, what waits again after a failure, what gave up. */
export interface QueueFigures {
  kind: string;
  pending: number;
  leased: number;
  retrying: number;
  failed: number;
  /** Settled as done within the last hour. */
  doneLastHour: number;
  oldestPendingAt: Date | null;
}

export async function queueFigures(pool: Pool): Promise<QueueFigures[]> {
  const { rows } = await pool.query<{
    kind: string;
    pending: string;
    leased: string;
    retrying: string;
    failed: string;
    done_hour: string;
    oldest: Date | null;
  }>(
    `SELECT kind,
       count(*) FILTER (WHERE status = 'pending' AND attempts = 0) AS pending,
       count(*) FILTER (WHERE status = 'leased') AS leased,
       count(*) FILTER (WHERE status = 'pending' AND attempts > 0) AS retrying,
       count(*) FILTER (WHERE status = 'dead') AS failed,
       count(*) FILTER (WHERE status = 'done' AND updated_at > now() - interval '1 hour') AS done_hour,
       min(run_at) FILTER (WHERE status = 'pending') AS oldest
     FROM work_items GROUP BY kind ORDER BY kind`,
  );
  return rows.map((r) => ({
    kind: r.kind,
    pending: Number(r.pending),
    leased: Number(r.leased),
    retrying: Number(r.retrying),
    failed: Number(r.failed),
    doneLastHour: Number(r.done_hour),
    oldestPendingAt: r.oldest,
  }));
}

/** The latest items that gave up (dead), with their error. */
export async function failedItems(pool: Pool, limit = 10) {
  const { rows } = await pool.query<{
    id: string;
    kind: string;
    attempts: number;
    last_error: string | null;
    updated_at: Date;
  }>(
    `SELECT id, kind, attempts, last_error, updated_at FROM work_items WHERE status = 'dead'
     ORDER BY updated_at DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

export interface RunInFlight {
  id: string;
  organizationId: string;
  tableId: string;
  columnId: string;
  status: string;
  total: number;
  settled: number;
  running: number;
  failed: number;
  createdAt: Date;
}

/** Column runs not finished yet, with their progress (the runs read model). */
export async function runsInFlight(pool: Pool, limit = 50): Promise<RunInFlight[]> {
  const { rows } = await pool.query<{
    id: string;
    organization_id: string;
    table_id: string;
    column_id: string;
    status: string;
    total: number;
    succeeded: number;
    failed: number;
    skipped: number;
    running: number;
    created_at: Date;
  }>(
    `SELECT id, organization_id, table_id, column_id, status, total, succeeded, failed, skipped, running, created_at
     FROM runs WHERE finished_at IS NULL ORDER BY created_at DESC LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({
    id: r.id,
    organizationId: r.organization_id,
    tableId: r.table_id,
    columnId: r.column_id,
    status: r.status,
    total: r.total,
    settled: r.succeeded + r.failed + r.skipped,
    running: r.running,
    failed: r.failed,
    createdAt: r.created_at,
  }));
}

export interface SubscriptionHealth {
  id: string;
  organizationId: string;
  status: string;
  url: string;
  consecutiveFailures: number;
  failingSince: Date | null;
  lastSuccessAt: Date | null;
}

/** Webhook subscriptions, the failing ones first (the webhook read models). */
export async function subscriptionHealth(pool: Pool, limit = 50): Promise<SubscriptionHealth[]> {
  const { rows } = await pool.query<{
    id: string;
    organization_id: string;
    status: string;
    url: string | null;
    consecutive_failures: number | null;
    failing_since: Date | null;
    last_success_at: Date | null;
  }>(
    `SELECT s.id, s.organization_id, s.status, s.state ->> 'url' AS url, h.consecutive_failures,
       h.failing_since, h.last_success_at
     FROM webhook_subscriptions s LEFT JOIN webhook_health h ON h.subscription_id = s.id
     ORDER BY coalesce(h.consecutive_failures, 0) DESC, s.created_at DESC LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({
    id: r.id,
    organizationId: r.organization_id,
    status: r.status,
    url: r.url ?? '',
    consecutiveFailures: r.consecutive_failures ?? 0,
    failingSince: r.failing_since,
    lastSuccessAt: r.last_success_at,
  }));
}

/** The latest failed delivery attempts (test sends included), newest first. */
export async function recentDeliveryFailures(pool: Pool, limit = 20) {
  const { rows } = await pool.query<{
    message_id: string;
    subscription_id: string;
    event_type: string;
    attempt: number;
    at: Date;
    status_code: number | null;
    outcome: string;
    response: string;
  }>(
    `SELECT a.message_id, m.subscription_id, m.event_type, a.attempt, a.at, a.status_code, a.outcome,
       left(a.response, 200) AS response
     FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id
     WHERE a.outcome NOT IN ('succeeded', 'skipped') ORDER BY a.at DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

export interface PoolFigures {
  name: string;
  max: number;
  total: number;
  idle: number;
  waiting: number;
}

export function poolFigures(pools: { name: string; pool: Pool | undefined }[]): PoolFigures[] {
  return pools
    .filter((p): p is { name: string; pool: Pool } => p.pool !== undefined)
    .map(({ name, pool }) => ({
      name,
      max: pool.options.max ?? 10,
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }));
}
