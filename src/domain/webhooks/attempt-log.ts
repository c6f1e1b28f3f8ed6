import type { EventStore, StreamAppendOutcome } from '../../event-store/port.ts';
import { GroupCommit } from '../../group-commit.ts';
import type { WebhookAttempted } from './events.ts';
import { deliveryStream } from './subscription-state.ts';

/** One attempt's record with its deterministic event id (a repeat of the same claim appends nothing). */
export interface AttemptRecord {
  eventId: string;
  record: WebhookAttempted;
}

const groups = new WeakMap<EventStore, GroupCommit<AttemptRecord, StreamAppendOutcome>>();

/**
 * Appends an attempt to its message's stream. The attempts finishing together (the deliveries of all
 * subscriptions run side by side) go out as one appendToStreams: one round trip and one commit for
 * the batch, each stream's part still failing alone.
 */
export async function recordAttempt(store: EventStore, attempt: AttemptRecord): Promise<void> {
  let group = groups.get(store);
  if (!group) {
    group = new GroupCommit(
      (records: AttemptRecord[]) =>
        store.appendToStreams(
          records.map(({ eventId, record }) => ({
            stream: deliveryStream.name(record.subscriptionId, record.messageId),
            events: [{ id: eventId, type: 'WebhookAttempted', data: record }],
          })),
        ),
      { maxBatch: 100, maxInFlight: 1 },
    );
    groups.set(store, group);
  }
  const outcome = await group.submit(attempt);
  if (!outcome.ok) throw outcome.error;
}
