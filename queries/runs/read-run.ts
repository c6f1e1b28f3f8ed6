import { RUNS } from '../../projections/runs/runs.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { RunView } from '../../src/domain/runs/schemas.ts';
import { AppError } from '../../src/errors.ts';
import { idForm } from '../../src/ids.ts';

export interface RunRecord {
  id: string;
  organization_id: string;
  table_id: string;
  column_id: string;
  trigger: RunView['trigger'];
  status: RunView['status'];
  total: number;
  queued: number;
  running: number;
  succeeded: number;
  failed: number;
  skipped: number;
  reserved: number;
  charged: number;
  refunded: number;
  created_at: Date;
  started_at: Date | null;
  stopping_at: Date | null;
  finished_at: Date | null;
  error: string | null;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const runView = (r: RunRecord): RunView => ({
  id: r.id,
  tableId: r.table_id,
  columnId: r.column_id,
  trigger: r.trigger,
  status: r.status,
  counts: {
    total: r.total,
    queued: r.queued,
    running: r.running,
    succeeded: r.succeeded,
    failed: r.failed,
    skipped: r.skipped,
  },
  credits: { reserved: r.reserved, charged: r.charged, refunded: r.refunded },
  createdAt: r.created_at.toISOString(),
  startedAt: iso(r.started_at),
  stoppingAt: iso(r.stopping_at),
  finishedAt: iso(r.finished_at),
  error: r.error,
});

export const isRunId = idForm('run');
export const runNotFound = (runId: string) => new AppError('not_found', `No run ${runId}.`);

/** A run of the principal's organization: 404 for an unknown id, 403 for another organization's. */
export async function readRun(
  pool: Pool,
  principal: Pick<Principal, 'organizationId'>,
  runId: string,
): Promise<RunRecord> {
  if (!isRunId(runId)) throw runNotFound(runId);
  const { rows } = await pool.query<RunRecord>(`SELECT * FROM ${RUNS} WHERE id = $1`, [runId]);
  const run = rows[0];
  if (!run) throw runNotFound(runId);
  if (run.organization_id !== principal.organizationId) {
    throw new AppError('forbidden', 'The run belongs to another organization.');
  }
  return run;
}
