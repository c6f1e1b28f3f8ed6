import {
  ANY,
  type AppendExpectedRevision,
  START as ESDB_START,
  type RecordedEvent as EsdbRecordedEvent,
  type EventType,
  NO_STREAM,
  STREAM_EXISTS,
  type WrongExpectedVersionError,
} from '@eventstore/db-client';
import { WrongExpectedRevisionError } from './errors.ts';
import type { EventMetadata, ExpectedRevision, Position, RecordedEvent } from './port.ts';
import type { EventRegistry } from './registry.ts';

/**
 * What EventStoreDB reports as the position of an event read from a stream rather than from $all: its
 * stream index keeps no global position, so the server sends the largest unsigned 64-bit value. It sorts
 * after every real position, so using it as a checkpoint or a wait target fails loudly, not silently.
 */
export const NO_GLOBAL_POSITION: Position = Object.freeze({
  commit: 2n ** 64n - 1n,
  prepare: 2n ** 64n - 1n,
});

export function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      return expected;
  }
}

export function toWrongExpectedRevision(
  stream: string,
  expected: ExpectedRevision,
  error: WrongExpectedVersionError,
): WrongExpectedRevisionError {
  const actual = error.actualVersion;
  return new WrongExpectedRevisionError(stream, expected, typeof actual === 'bigint' ? actual : 'no_stream');
}

/** Our START is "before everything"; the client spells that as its own START constant. */
export function toEsdbPosition(position: Position): Position | typeof ESDB_START {
  return position.commit < 0n ? ESDB_START : position;
}

/**
 * Events the server writes for itself (`$`-types such as `$metadata`, `$statsCollected`, `$>` links) and
 * everything in `$`-streams: `$persistentSubscriptionConfig` holds `PersistentConfig1` events, whose type
 * has no `$`, so the type alone is not enough.
 */
export function isSystemEvent(event: { type: string; streamId: string }): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

function metadataOf(value: unknown): EventMetadata {
  return typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array)
    ? (value as EventMetadata)
    : {};
}

export function toRecorded(event: EsdbRecordedEvent<EventType>, registry: EventRegistry): RecordedEvent {
  return registry.decode({
    id: event.id,
    stream: event.streamId,
    revision: event.revision,
    position: event.position
      ? { commit: event.position.commit, prepare: event.position.prepare }
      : NO_GLOBAL_POSITION,
    type: event.type,
    data: event.data,
    metadata: metadataOf(event.metadata),
    recordedAt: event.created,
  });
}
