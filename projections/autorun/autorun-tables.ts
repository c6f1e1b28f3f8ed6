import type { PoolClient } from '../../src/db/pool.ts';
import type { AutoRun } from '../../src/domain/columns/fields.ts';
import type { TriggerColumn } from '../../src/domain/columns/retrigger-cycle.ts';
import { groupBy } from '../../src/group-by.ts';
import type { ApplyContext } from '../../src/projection/types.ts';

/*
 * The auto-run reactor's own tables (autorun.ts): its copy of each table's columns, and the rows
 * waiting for a run per column, with the work item that makes the worker start one.
 */

/** Logical names: the worker reads and empties the pending rows (processes/autorun/worker.ts). */
export const AUTORUN_COLUMNS = 'autorun_columns';
export const AUTORUN_PENDING = 'autorun_pending';
export const AUTORUN_KIND = 'autorun';

export interface AutoColumn extends TriggerColumn {
  tableId: string;
  organizationId: string;
}

export interface Pending {
  organizationId: string;
  tableId: string;
  columnId: string;
  rowId: string;
  trigger: 'onInsert' | 'onSourceUpdate';
  /** The log position the rows read model must reach before the run reads the row. */
  commit: string;
  prepare: string;
  /** The event that asked: the first of a column's pending rows names its work item. */
  eventId: string;
}

/** The lock the reactor and the worker take on one column's pending rows (see the worker). */
export const pendingLock = (columnId: string) => `autorun:${columnId}`;

export async function loadOrganizations(
  tx: PoolClient,
  t: string,
  tableIds: string[],
): Promise<Map<string, string>> {
  const { rows } = await tx.query<{ table_id: string; organization_id: string }>(
    `SELECT table_id, organization_id FROM ${t} WHERE table_id = ANY($1)`,
    [tableIds],
  );
  return new Map(rows.map((r) => [r.table_id, r.organization_id]));
}

export async function loadColumns(
  tx: PoolClient,
  table: (logical: string) => string,
  tableIds: string[],
): Promise<Map<string, AutoColumn>> {
  const { rows } = await tx.query<{
    column_id: string;
    table_id: string;
    key: string;
    auto_run: AutoRun;
    config: Record<string, unknown>;
    organization_id: string;
  }>(
    `SELECT c.column_id, c.table_id, c.key, c.auto_run, c.config, t.organization_id
     FROM ${table(AUTORUN_COLUMNS)} c JOIN ${table('autorun_tables')} t USING (table_id)
     WHERE c.table_id = ANY($1)`,
    [tableIds],
  );
  return new Map(
    rows.map((r) => [
      r.column_id,
      {
        id: r.column_id,
        key: r.key,
        autoRun: r.auto_run,
        config: r.config,
        tableId: r.table_id,
        organizationId: r.organization_id,
      },
    ]),
  );
}

export async function saveColumns(
  tx: PoolClient,
  t: string,
  columns: Map<string, AutoColumn>,
  changed: Set<string>,
  removed: Set<string>,
): Promise<void> {
  if (removed.size > 0) await tx.query(`DELETE FROM ${t} WHERE column_id = ANY($1)`, [[...removed]]);
  const rows = [...changed].map((id) => columns.get(id)!);
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO ${t} (column_id, table_id, key, auto_run, config)
     SELECT id, table_id, key, auto_run, config FROM json_to_recordset($1::json)
       AS r(id text, table_id text, key text, auto_run text, config jsonb)
     ON CONFLICT (column_id) DO UPDATE SET key = EXCLUDED.key, auto_run = EXCLUDED.auto_run, config = EXCLUDED.config`,
    [
      JSON.stringify(
        rows.map((c) => ({
          id: c.id,
          table_id: c.tableId,
          key: c.key,
          auto_run: c.autoRun,
          config: c.config,
        })),
      ),
    ],
  );
}

/**
 * Adds the pending rows, and a work item for each column that had none pending before (under the
 * column's lock, which the worker takes to empty them: between the two, no row is left without an item).
 */
export async function addPending(
  tx: PoolClient,
  t: string,
  pending: Pending[],
  enqueue: ApplyContext['enqueue'],
): Promise<void> {
  for (const [columnId, rows] of groupBy(pending, (p) => p.columnId)) {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [pendingLock(columnId)]);
    const { rows: before } = await tx.query(`SELECT 1 FROM ${t} WHERE column_id = $1 LIMIT 1`, [columnId]);
    await tx.query(
      `INSERT INTO ${t} (organization_id, table_id, column_id, row_id, trigger, commit_position, prepare_position)
       SELECT organization_id, table_id, column_id, row_id, trigger, commit, prepare
       FROM json_to_recordset($1::json) AS r(organization_id text, table_id text, column_id text, row_id text,
         trigger text, commit bigint, prepare bigint)
       ON CONFLICT (column_id, row_id, trigger) DO UPDATE
         SET commit_position = greatest(${t}.commit_position, EXCLUDED.commit_position),
             prepare_position = greatest(${t}.prepare_position, EXCLUDED.prepare_position)`,
      [
        JSON.stringify(
          rows.map((r) => ({
            ...r,
            organization_id: r.organizationId,
            table_id: r.tableId,
            column_id: r.columnId,
            row_id: r.rowId,
          })),
        ),
      ],
    );
    if (before.length > 0) continue;
    const first = rows[0]!;
    await enqueue([
      {
        id: `${AUTORUN_KIND}:${columnId}:${first.eventId}`,
        kind: AUTORUN_KIND,
        organizationId: first.organizationId,
        groupKey: columnId,
        groupLimit: 1,
        payload: { tableId: first.tableId, columnId },
      },
    ]);
  }
}
