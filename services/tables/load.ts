import type { Principal } from '../../src/auth/scopes.ts';
import { type LoadedState, loadState, loadStates, type StreamLoad } from '../../src/command.ts';
import { otherOrganization, tableNotFound } from '../../src/domain/tables/access.ts';
import type { TableEvent } from '../../src/domain/tables/events.ts';
import { isTableId } from '../../src/domain/tables/ids.ts';
import { type TableState, tableStream } from '../../src/domain/tables/table-state.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import type { DomainEvent } from '../../src/stream.ts';

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
