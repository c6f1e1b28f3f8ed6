import { z } from 'zod';
import { rowsProjection } from '../../projections/rows/rows.ts';
import { insertedRows } from '../../services/rows/load.ts';
import { loadTableForWrite } from '../../services/tables/load.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import { handleCommand, loadState } from '../../src/command.ts';
import { handleCommandBatch } from '../../src/command-batch.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { ColumnKeySchema } from '../../src/domain/columns/fields.ts';
import { invalidInput } from '../../src/domain/rows/access.ts';
import { checkCells, columnsByKey, type RowColumn, writtenStatuses } from '../../src/domain/rows/cells.ts';
import type { InsertedRow } from '../../src/domain/rows/events.ts';
import { batchIdFor, newBatchId, rowIdOf } from '../../src/domain/rows/ids.ts';
import { insertedRow, type RowState, rowBatchStream, rowStream } from '../../src/domain/rows/row-state.ts';
import { CellsSchema, MAX_BATCH, RowSchema } from '../../src/domain/rows/schemas.ts';
import { rowView } from '../../src/domain/rows/view.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { AppError, type FieldError } from '../../src/errors.ts';
import type { EventMetadata, Position } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import { idempotentWork } from '../../src/http/idempotency.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { changeCells } from './patch-row.ts';
import { firstFailure, newest, ROWS_BODY_LIMIT, rowPath, serializeAsIs } from './shared.ts';
import { findMatches, matchKey, refuseDuplicates, upsertColumn, withUpsertLock } from './upsert.ts';

export interface InsertRows {
  tableId: string;
  batchId: string;
  /** In the order sent; cells checked against the columns' data types, by column id. */
  rows: InsertedRow[];
}

/** A batch of new rows: its id is fresh, so its stream must not exist yet. */
export const insertRows = rowBatchStream.decider((command: InsertRows, state, now) => {
  if (state.exists) throw new AppError('conflict', `Batch ${command.batchId} exists.`);
  return [{ type: 'RowsInserted', data: { ...command, at: now.toISOString() } }];
});

export const InsertRowsBody = z.strictObject({
  rows: z
    .array(z.strictObject({ cells: CellsSchema }))
    .min(1)
    .max(MAX_BATCH)
    .describe(`1 to ${MAX_BATCH} rows, answered in the order sent`),
  upsertOn: ColumnKeySchema.optional().describe(
    'A column key: a row whose value there matches an existing row (as equals does) updates that row (the ' +
      'oldest, should several match) instead of inserting; null then clears a cell',
  ),
});

const Outcome = z.object({
  index: z.number().int(),
  outcome: z.enum(['created', 'updated']),
  rowId: z.string(),
});
const Answer = z.object({ data: z.array(RowSchema), results: z.array(Outcome).optional() });

/** A new row's cells: a null (clearing) is the same as leaving the cell out; copied only when there is one. */
function withoutNulls(cells: Record<string, unknown>): Record<string, unknown> {
  for (const key in cells) {
    if (cells[key] === null) return Object.fromEntries(Object.entries(cells).filter(([, v]) => v !== null));
  }
  return cells;
}

interface Batch {
  tableId: string;
  columns: ReadonlyMap<string, RowColumn>;
  cells: Record<string, unknown>[];
  /** Per row, the existing row it updates (upsert), else undefined: a new row. */
  targets: (string | undefined)[];
  metadata: EventMetadata;
  now: Date;
  /** The new rows' batch id, when the caller names it (a repeat then answers the first rows). */
  batchId?: string;
}

interface Written {
  /** Each row as written, in the order sent. */
  rows: RowState[];
  /** Where the appends landed: read models past the newest show the whole batch. */
  positions: (Position | undefined)[];
}

/** Appends the batch: the new rows as one event of a batch stream, updates merged by cell on their own streams. */
async function write(deps: ServiceDeps, batch: Batch): Promise<Written> {
  const { tableId, columns, metadata, now } = batch;
  const creates: number[] = [];
  const updates: number[] = [];
  batch.targets.forEach((target, i) => {
    (target ? updates : creates).push(i);
  });
  const rows: RowState[] = new Array(batch.cells.length);
  const positions: (Position | undefined)[] = [];
  if (creates.length > 0) {
    const batchId = batch.batchId ?? newBatchId(now.getTime());
    const inserted = creates.map((i, k): InsertedRow => {
      const cells = withoutNulls(batch.cells[i]!);
      return { rowId: rowIdOf(batchId, k), cells, statuses: writtenStatuses(columns, cells) };
    });
    const stream = rowBatchStream.name(tableId, batchId);
    // A fresh batch id names no stream yet: nothing to read (the append still expects no stream).
    const existing = batch.batchId
      ? await loadState(deps.store, stream, rowBatchStream)
      : { state: rowBatchStream.initialState(), revision: undefined };
    const at = now.toISOString();
    // Written before (a repeat after a crash): the rows are those of the first time, not written again.
    if (!existing.state.exists) {
      const result = await handleCommand({
        store: deps.store,
        stream,
        decider: insertRows,
        command: { tableId, batchId, rows: inserted },
        metadata,
        now,
        loaded: existing,
      });
      positions.push(result.appended?.position);
    }
    creates.forEach((i, k) => {
      rows[i] = insertedRow(tableId, inserted[k]!, at);
    });
  }
  if (updates.length > 0) {
    const origins = await insertedRows(
      deps.store,
      tableId,
      updates.map((i) => batch.targets[i]!),
    );
    const outcomes = await handleCommandBatch({
      store: deps.store,
      decider: changeCells,
      read: 'all',
      items: updates.map((i) => {
        const rowId = batch.targets[i]!;
        const command = { tableId, rowId, cells: batch.cells[i]!, columns };
        return {
          stream: rowStream.name(tableId, rowId),
          command,
          metadata,
          now,
          initial: origins.get(rowId),
        };
      }),
    });
    try {
      for (const [k, r] of firstFailure(outcomes).entries()) {
        rows[updates[k]!] = r.state;
        positions.push(r.appended?.position);
      }
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found')
        throw new AppError(
          'conflict',
          'A row the upsert matched was deleted meanwhile; send the batch again.',
        );
      throw error;
    }
  }
  return { rows, positions };
}

export interface InsertRowsInput {
  tableId: string;
  /** Whose table it must be: another organization's is refused as the API refuses it. */
  organizationId: string;
  /** Cells by column key, in the order sent. */
  cells: Record<string, unknown>[];
  upsertOn?: string;
  metadata: EventMetadata;
  /** The new rows' batch id; absent, a new one. A batch that exists already answers its rows again. */
  batchId?: string;
}

/**
 * Inserts (or upserts) rows as `POST /api/tables/{tableId}/rows` does, for the route and for what
 * writes rows from inside the service (a sync_to_table run): the same checks, events and wait for the
 * rows read model. Answers each row as written, which existing row it updated (upsert), and the table.
 */
export async function insertRowsAs(deps: ServiceDeps, input: InsertRowsInput) {
  const { tableId } = input;
  const principal = { organizationId: input.organizationId } as Principal;
  const { state: table } = await loadTableForWrite(deps.store, tableId, principal);
  const byKey = columnsByKey(table.columns.values());
  const column = input.upsertOn === undefined ? undefined : upsertColumn(byKey, input.upsertOn);
  const errors: FieldError[] = [];
  const cells = input.cells.map((row, i) => {
    const result = checkCells(byKey, row, `rows[${i}].cells`, 'clear');
    errors.push(...result.errors);
    return result.cells;
  });
  if (errors.length > 0) throw invalidInput('body', errors);
  const batch: Batch = {
    tableId,
    columns: table.columns,
    cells,
    targets: cells.map(() => undefined),
    metadata: input.metadata,
    now: deps.clock(),
    batchId: input.batchId,
  };
  const commit = async () => {
    const written = await write(deps, batch);
    await readYourWrites(deps, newest(written.positions), [rowsProjection]);
    return written.rows;
  };
  let results: RowState[];
  if (column) {
    refuseDuplicates(column, cells);
    results = await withUpsertLock(deps, tableId, async () => {
      const values = cells.map((c) => c[column.id]).filter((v) => v !== undefined && v !== null);
      const matches = await findMatches(deps, tableId, column, values);
      batch.targets = cells.map((c) =>
        c[column.id] == null ? undefined : matches.get(matchKey(c[column.id])),
      );
      return commit();
    });
  } else results = await commit();
  return { results, targets: batch.targets, table };
}

/** POST /api/tables/{tableId}/rows */
export const insertRowsRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables/:tableId/rows',
    {
      config: { access: 'tables:write' },
      bodyLimit: ROWS_BODY_LIMIT,
      serializerCompiler: serializeAsIs,
      schema: {
        operationId: 'insertRows',
        tags: ['rows'],
        summary: 'Insert rows (or upsert them on a column)',
        description:
          'Every value is checked against its column dataType; a batch with any bad value is refused whole ' +
          '(400 naming each path, e.g. rows[3].cells.score) and stores nothing. 201 when a row was created ' +
          '(Location: the first one), 200 when an upsert only updated.',
        params: TableParams,
        body: InsertRowsBody,
        response: { 201: Answer, 200: Answer },
      },
    },
    async (request, reply) => {
      const { tableId } = request.params;
      const { rows, upsertOn } = request.body;
      // Under an Idempotency-Key the batch is named after the key: a retry of an attempt whose process
      // died after writing finds its rows instead of inserting them again.
      const work = idempotentWork(request);
      const { results, targets, table } = await insertRowsAs(deps, {
        batchId: work && batchIdFor(work.timeMs, work.seed),
        tableId,
        organizationId: principalOf(request).organizationId,
        cells: rows.map((r) => r.cells),
        upsertOn,
        metadata: eventMetadata(request),
      });
      const columns = [...table.columns.values()];
      const data = results.map((r) => rowView(columns, r));
      const created = targets.indexOf(undefined);
      if (created >= 0) reply.code(201).header('location', rowPath(tableId, data[created]!.id));
      if (upsertOn === undefined) return reply.send({ data });
      const outcomes = data.map((row, index) => ({
        index,
        outcome: targets[index] ? ('updated' as const) : ('created' as const),
        rowId: row.id,
      }));
      return reply.send({ data, results: outcomes });
    },
  );
};
