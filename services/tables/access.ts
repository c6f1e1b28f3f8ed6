import type { Principal } from '../../src/auth/scopes.ts';
import { type LoadedState, loadState, loadStates, type StreamLoad } from '../../src/command.ts';
import { AppError } from '../../src/errors.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import type { DomainEvent } from '../../src/stream.ts';
import type { TableEvent } from '../../src/domain/tables/events.ts';
import { isColumnId, isTableId } from '../../src/domain/tables/ids.ts';
import { type TableColumn, type TableState, tableStream } from '../../src/domain/tables/table-state.ts';

export const tableNotFound = (tableId: string) => new AppError('not_found', `No table ${tableId}.`);
export const columnNotFound = (tableId: string, columnId: string) =>
  new AppError('not_found', `No column ${columnId} in table ${tableId}.`);
const otherOrganization = () => new AppError('forbidden', 'The table belongs to another organization.');

/**
 * The table as its stream tells it, for a command: 404 when it does not exist (or the id is of the
 * wrong form), 403 when it belongs to another organization than the key's.
 */
export async function loadTableForWrite(
  store: EventStore,
  tableId: string,
  principal: Principal,
): Promise<LoadedState<TableState>> {
  if (!isTableId(tableId)) throw tableNotFound(tableId);
  return writable(tableId, await loadState(store, tableStream.name(tableId), tableStream), principal);
}

/**
 * `loadTableForWrite`, and the state of another stream the command decides on (one of the table's
 * columns, say), both in one read of the store.
 */
export async function loadTableForWriteWith<S, E extends DomainEvent>(
  store: EventStore,
  tableId: string,
  principal: Principal,
  other: StreamLoad<S, E>,
): Promise<{ table: LoadedState<TableState>; other: LoadedState<S> }> {
  if (!isTableId(tableId)) throw tableNotFound(tableId);
  const table: StreamLoad<TableState, TableEvent> = {
    stream: tableStream.name(tableId),
    definition: tableStream,
  };
  const [loaded, otherLoaded] = await loadStates(store, [table, other] as const);
  return { table: writable(tableId, loaded, principal), other: otherLoaded };
}

function writable(
  tableId: string,
  loaded: LoadedState<TableState>,
  principal: Principal,
): LoadedState<TableState> {
  if (!loaded.state.exists) throw tableNotFound(tableId);
  if (loaded.state.organizationId !== principal.organizationId) throw otherOrganization();
  return loaded;
}

/** The member column of a loaded table, or 404. */
export function memberColumn(table: TableState, columnId: string): TableColumn {
  const column = isColumnId(columnId) ? table.columns.get(columnId) : undefined;
  if (!column) throw columnNotFound(table.id, columnId);
  return column;
}

/**
 * The same checks for a query, on the table's read-model row (undefined: no such table), which the
 * query reads together with what it answers.
 */
export function readableTable<Row extends { organization_id: string }>(
  row: Row | undefined,
  tableId: string,
  principal: Principal,
): Row {
  if (!row) throw tableNotFound(tableId);
  if (row.organization_id !== principal.organizationId) throw otherOrganization();
  return row;
}

/** Owning organization of each named table (undefined: no such table), for destinationTableId checks. */
export async function tableOrganizations(
  store: EventStore,
  ids: readonly string[],
): Promise<Map<string, string | undefined>> {
  const owners = new Map<string, string | undefined>();
  for (const id of new Set(ids)) {
    if (!isTableId(id)) {
      owners.set(id, undefined);
      continue;
    }
    const { state } = await loadState(store, tableStream.name(id), tableStream);
    owners.set(id, state.exists ? state.organizationId : undefined);
  }
  return owners;
}
