import type { EventStore, StreamAppendOutcome } from '../../event-store/port.ts';
import { GroupCommit } from '../../group-commit.ts';
import type { WebhookAttempted } from './events.ts';
import { uuidOf } from './signing.ts';
import { attemptLogStream } from './subscription-state.ts';

/** One attempt's record with its deterministic id (the work item and its claim). */
export interface AttemptRecord {
  eventId: string;
  record: WebhookAttempted;
}

const groups = new WeakMap<EventStore, GroupCommit<AttemptRecord, StreamAppendOutcome>>();

/**
 * The attempts of a batch as appends: one WebhookAttemptsRecorded per subscription, carrying its
 * attempts in the order they finished, its id made from theirs. Answers the append of each attempt.
 */
export function attemptAppends(records: readonly AttemptRecord[]) {
  const bySubscription = new Map<string, AttemptRecord[]>();
  for (const r of records) {
    const of = bySubscription.get(r.record.subscriptionId);
    if (of) of.push(r);
    else bySubscription.set(r.record.subscriptionId, [r]);
  }
  const batches = [...bySubscription.values()];
  const appends = batches.map((batch) => {
    const { subscriptionId, organizationId } = batch[0]!.record;
    return {
      stream: attemptLogStream.name(organizationId, subscriptionId),
      events: [
        {
          id: uuidOf(`attempts:${batch.map((r) => r.eventId).join(' ')}`),
          type: 'WebhookAttemptsRecorded',
          data: { subscriptionId, organizationId, attempts: batch.map((r) => r.record) },
        },
      ],
    };
  });
  const appendOf = new Map(batches.flatMap((batch, i) => batch.map((r) => [r, i] as const)));
  return { appends, appendOf: (record: AttemptRecord) => appendOf.get(record)! };
}

/**
 * Records an attempt in its subscription's attempt log. The attempts finishing together (the
 * deliveries of all subscriptions run side by side) go out as one appendToStreams: one round trip and
 * one commit for the batch, one event per subscription, each subscription's part failing alone.
 */
export async function recordAttempt(store: EventStore, attempt: AttemptRecord): Promise<void> {
  let group = groups.get(store);
  if (!group) {
    group = new GroupCommit(
      async (records: AttemptRecord[]) => {
        const { appends, appendOf } = attemptAppends(records);
        const outcomes = await store.appendToStreams(appends);
        return records.map((r) => outcomes[appendOf(r)]!);
      },
      { maxBatch: 100, maxInFlight: 1 },
    );
    groups.set(store, group);
  }
  const outcome = await group.submit(attempt);
  if (!outcome.ok) throw outcome.error;
}
