import type { WebhookAttempted } from '../../src/domain/webhooks/events.ts';
import { CLAIMED_PER_SUBSCRIPTION } from '../../src/domain/webhooks/messages.ts';
import { uuidOf } from '../../src/domain/webhooks/signing.ts';
import { attemptLogStream } from '../../src/domain/webhooks/subscription-state.ts';
import type { EventStore, Position, StreamAppendOutcome } from '../../src/event-store/port.ts';
import { groupBy } from '../../src/group-by.ts';
import { GroupCommit } from '../../src/group-commit.ts';

/** One attempt's record with its deterministic id (the work item and its claim). */
export interface AttemptRecord {
  eventId: string;
  record: WebhookAttempted;
}

/**
 * The attempts of a batch as appends: one WebhookAttemptsRecorded per subscription, carrying its
 * attempts in the order they finished, its id made from theirs. Answers the append of each attempt.
 */
export function attemptAppends(records: readonly AttemptRecord[]) {
  const batches = [...groupBy(records, (r) => r.record.subscriptionId).values()];
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
 * Attempts of a subscription held back while more of its messages are on their way (up to this many):
 * at thousands of messages a second an append left with 2 or 3 attempts, and each append costs the
 * database a commit, a read by the projections and a history batch. A quarter of the messages claimed
 * at once: the others are being sent while these are recorded, settled and claimed again.
 */
export const HOLD_UP_TO = CLAIMED_PER_SUBSCRIPTION / 4;
/** The longest an attempt is held (its subscription's other POSTs are slow): a backstop, not the rule. */
export const HOLD_MS = 50;

interface Held {
  attempt: AttemptRecord;
  resolve: (position: Position) => void;
  reject: (error: unknown) => void;
}

interface Subscription {
  /** Deliveries begun and not yet recorded (sending, or waiting for a send slot). */
  coming: number;
  held: Held[];
  timer?: NodeJS.Timeout;
}

/**
 * A process's attempt log: records attempts in their subscriptions' attempt logs. A delivery says when
 * it begins (`begin`), then records its attempt (`record`) or gives up without one (`abandon`). An
 * attempt that succeeded waits while others of its subscription are still coming, until HOLD_UP_TO are
 * held, the last one coming is recorded or abandoned, one did not succeed, or HOLD_MS pass: a lone
 * message is recorded at once. What is
 * let go goes out as one appendToStreams with whatever else is waiting (one round trip and one commit
 * while the previous append is out), one event per subscription, each subscription's part failing alone.
 */
export class AttemptLog {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly group: GroupCommit<AttemptRecord[], StreamAppendOutcome[]>;

  /** `holdMs`: HOLD_MS but in tests, which hold as long as they need. */
  constructor(
    store: EventStore,
    private readonly holdMs = HOLD_MS,
  ) {
    this.group = new GroupCommit(
      async (batches: AttemptRecord[][]) => {
        const records = batches.flat();
        const { appends, appendOf } = attemptAppends(records);
        const outcomes = await store.appendToStreams(appends);
        return batches.map((batch) => batch.map((r) => outcomes[appendOf(r)]!));
      },
      { maxBatch: 100, maxInFlight: 1 },
    );
  }

  begin(subscriptionId: string): void {
    this.of(subscriptionId).coming++;
  }

  /** Resolves with its append's position once the attempt is in the log (rejects when its append failed). */
  record(attempt: AttemptRecord): Promise<Position> {
    const id = attempt.record.subscriptionId;
    const sub = this.of(id);
    sub.coming = Math.max(0, sub.coming - 1);
    const recorded = new Promise<Position>((resolve, reject) => sub.held.push({ attempt, resolve, reject }));
    // A failure goes at once, with what is held: the disable rules read the health it feeds.
    const now = sub.coming === 0 || sub.held.length >= HOLD_UP_TO || attempt.record.outcome !== 'succeeded';
    if (now) this.release(id, sub);
    else sub.timer ??= setTimeout(() => this.release(id, sub), this.holdMs).unref();
    return recorded;
  }

  /** A delivery that ends without an attempt to record (stopped, taken over, failed). */
  abandon(subscriptionId: string): void {
    const sub = this.of(subscriptionId);
    sub.coming = Math.max(0, sub.coming - 1);
    if (sub.coming === 0) this.release(subscriptionId, sub);
  }

  /** Attempts held now and deliveries coming, per subscription (for tests). */
  pending(subscriptionId: string): { held: number; coming: number } {
    const sub = this.subscriptions.get(subscriptionId);
    return { held: sub?.held.length ?? 0, coming: sub?.coming ?? 0 };
  }

  private of(subscriptionId: string): Subscription {
    let sub = this.subscriptions.get(subscriptionId);
    if (!sub) {
      sub = { coming: 0, held: [] };
      this.subscriptions.set(subscriptionId, sub);
    }
    return sub;
  }

  private release(subscriptionId: string, sub: Subscription): void {
    clearTimeout(sub.timer);
    sub.timer = undefined;
    const held = sub.held.splice(0);
    // Nothing held and nothing coming: forgotten, so the map holds only subscriptions at work.
    if (sub.coming === 0 && this.subscriptions.get(subscriptionId) === sub)
      this.subscriptions.delete(subscriptionId);
    if (held.length === 0) return;
    this.group.submit(held.map((h) => h.attempt)).then(
      (outcomes) => {
        for (const [i, h] of held.entries()) {
          const outcome = outcomes[i]!;
          if (outcome.ok) h.resolve(outcome.result.position);
          else h.reject(outcome.error);
        }
      },
      (error: unknown) => {
        for (const h of held) h.reject(error);
      },
    );
  }
}

declare module '../../src/deps.ts' {
  interface ServiceParts {
    /** The service's one log of delivery attempts, so that attempts recorded at once share appends. */
    attemptLog: AttemptLog;
  }
}
