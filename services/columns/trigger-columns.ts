import { loadStates } from '../../src/command.ts';
import { columnStream } from '../../src/domain/columns/column-state.ts';
import { type TriggerColumn, triggerColumn } from '../../src/domain/columns/retrigger-cycle.ts';
import type { TableState } from '../../src/domain/tables/table-state.ts';
import type { EventStore } from '../../src/event-store/port.ts';

/** Every column of a table as its own stream has it (not the read model, which may lag a write). */
export async function loadTriggerColumns(store: EventStore, table: TableState): Promise<TriggerColumn[]> {
  const loads = [...table.columns.keys()].map((id) => ({
    stream: columnStream.name(table.id, id),
    definition: columnStream,
  }));
  const states = await loadStates(store, loads);
  return states.flatMap(({ state }) => (state.column ? [triggerColumn(state.column)] : []));
}
