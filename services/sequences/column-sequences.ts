import { loadState } from '../../src/command.ts';
import type { SequenceSummary } from '../../src/domain/columns/config/spec.ts';
import { isSequenceId } from '../../src/domain/sequences/access.ts';
import { sequenceStream } from '../../src/domain/sequences/streams.ts';
import type { EventStore } from '../../src/event-store/port.ts';

/**
 * The sequence an `add_to_sequence` column config names, read before deciding (ConfigContext.sequences):
 * undefined for an id that names no sequence; an empty map when the config names none.
 */
export async function sequencesNamed(
  store: EventStore,
  config: Record<string, unknown> | undefined,
): Promise<Map<string, SequenceSummary | undefined>> {
  const id = config?.sequenceId;
  if (typeof id !== 'string') return new Map();
  if (!isSequenceId(id)) return new Map([[id, undefined]]);
  const { state } = await loadState(store, sequenceStream.name(id), sequenceStream);
  return new Map([
    [
      id,
      state.exists
        ? { organizationId: state.organizationId, status: state.status, sourceTableId: state.sourceTableId }
        : undefined,
    ],
  ]);
}
