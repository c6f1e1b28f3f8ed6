import type { DeliveryEvent, WebhookAttempted } from '../../src/domain/webhooks/events.ts';
import type { Projection } from '../../src/projection/types.ts';

/** Logical names of the read model's tables; queries import them from here. */
export const MESSAGES = 'webhook_messages';
export const ATTEMPTS = 'webhook_attempts';
export const HEALTH = 'webhook_health';

/**
 * The delivery history: each message of a subscription with its status and its attempts (kept
 * WEBHOOK_HISTORY_DAYS after its last attempt, 30 by default: history-retention.ts), and each subscription's health, which the
 * disable rules read. Test sends are history too, but do not count for health.
 */
export const deliveriesProjection: Projection<DeliveryEvent> = {
  name: 'webhook-deliveries',
  // 2: the index the retention prunes by.
  version: 2,
  handles: ['WebhookAttempted', 'WebhookAttemptsRecorded'],
  // A read model: its commits (one per batch of attempts) wake no worker.
  enqueues: [],
  tables: {
    [MESSAGES]: (t) => [
      `CREATE TABLE ${t} (
        id text PRIMARY KEY,
        subscription_id text NOT NULL,
        organization_id text NOT NULL,
        event_type text NOT NULL,
        event_at timestamptz NOT NULL,
        test boolean NOT NULL,
        status text NOT NULL,
        attempts integer NOT NULL,
        last_attempt_at timestamptz NOT NULL,
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL
      )`,
      `CREATE INDEX ${t}_by_subscription ON ${t} (subscription_id, created_at DESC, id DESC)`,
      `CREATE INDEX ${t}_by_event_time ON ${t} (subscription_id, event_at)`,
      // What the retention prunes (processes/webhooks/history-retention.ts).
      `CREATE INDEX ${t}_by_last_attempt ON ${t} (last_attempt_at)`,
    ],
    [ATTEMPTS]: (t) => [
      `CREATE TABLE ${t} (
        message_id text NOT NULL,
        attempt integer NOT NULL,
        at timestamptz NOT NULL,
        status_code integer,
        duration_ms integer NOT NULL,
        response text NOT NULL,
        outcome text NOT NULL,
        next_attempt_at timestamptz,
        PRIMARY KEY (message_id, attempt)
      )`,
    ],
    [HEALTH]: (t) => [
      `CREATE TABLE ${t} (
        subscription_id text PRIMARY KEY,
        consecutive_failures integer NOT NULL,
        failing_since timestamptz,
        last_success_at timestamptz
      )`,
    ],
  },
  async apply(events, { tx, table }) {
    const [messages, attempts, health] = [table(MESSAGES), table(ATTEMPTS), table(HEALTH)];
    const records = attemptsOf(events);
    // Two statements for the whole batch (the health's needs what the first added): at a thousand
    // attempts a second, three statements per attempt were most of the database's work.
    // The messages and their attempts in one statement (one round trip); what it added comes back.
    const { rows: added } = await tx.query<{ message_id: string; attempt: number }>(
      `WITH upserted AS (
         INSERT INTO ${messages} (id, subscription_id, organization_id, event_type, event_at, test, status,
                                  attempts, last_attempt_at, next_attempt_at, created_at)
         SELECT m.id, m.subscription_id, m.organization_id, m.event_type, m.event_at, m.test, m.status,
                m.attempts, m.last_attempt_at, m.next_attempt_at, m.created_at
         FROM jsonb_to_recordset($1::jsonb) AS m(id text, subscription_id text, organization_id text,
           event_type text, event_at timestamptz, test boolean, status text, attempts integer,
           last_attempt_at timestamptz, next_attempt_at timestamptz, created_at timestamptz)
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts,
           last_attempt_at = EXCLUDED.last_attempt_at, next_attempt_at = EXCLUDED.next_attempt_at
         WHERE ${messages}.attempts < EXCLUDED.attempts
       )
       INSERT INTO ${attempts} (message_id, attempt, at, status_code, duration_ms, response, outcome, next_attempt_at)
       SELECT a."messageId", a.attempt, a.at, a."statusCode", a."durationMs", a.response, a.outcome, a."nextAttemptAt"
       FROM jsonb_to_recordset($2::jsonb) AS a("messageId" text, attempt integer, at timestamptz,
         "statusCode" integer, "durationMs" integer, response text, outcome text, "nextAttemptAt" timestamptz)
       ON CONFLICT DO NOTHING
       RETURNING message_id, attempt`,
      [JSON.stringify(latestByMessage(records)), JSON.stringify(records)],
    );
    // An attempt recorded twice (in two batches of the attempt log) counts once for the health.
    const folded = foldHealth(firstOf(records, added));
    if (folded.length === 0) return;
    await tx.query(
      `INSERT INTO ${health} AS h (subscription_id, consecutive_failures, failing_since, last_success_at)
       SELECT f.subscription_id, f.failures, f.failing_since, f.last_success_at
       FROM jsonb_to_recordset($1::jsonb) AS f(subscription_id text, failures integer,
         failing_since timestamptz, last_success_at timestamptz)
       ON CONFLICT (subscription_id) DO UPDATE SET
         consecutive_failures = CASE WHEN EXCLUDED.last_success_at IS NOT NULL THEN EXCLUDED.consecutive_failures
                                     ELSE h.consecutive_failures + EXCLUDED.consecutive_failures END,
         failing_since = CASE WHEN EXCLUDED.last_success_at IS NOT NULL THEN EXCLUDED.failing_since
                              ELSE coalesce(h.failing_since, EXCLUDED.failing_since) END,
         last_success_at = coalesce(EXCLUDED.last_success_at, h.last_success_at)`,
      [JSON.stringify(folded)],
    );
  },
};

/** The attempts of a batch of events, in log order: a batch of the attempt log, or one legacy event. */
export function attemptsOf(events: readonly DeliveryEvent[]): WebhookAttempted[] {
  return events.flatMap((e) => (e.type === 'WebhookAttemptsRecorded' ? e.data.attempts : [e.data]));
}

/** The records whose rows this batch added, once each (the first of a repeat), in log order. */
export function firstOf(
  records: readonly WebhookAttempted[],
  added: readonly { message_id: string; attempt: number }[],
): WebhookAttempted[] {
  const fresh = new Set(added.map((a) => `${a.message_id}\0${a.attempt}`));
  return records.filter((r) => fresh.delete(`${r.messageId}\0${r.attempt}`));
}

/**
 * Each message's row after the batch: its latest attempt's status, first seen at its earliest attempt
 * of the batch (an upsert may not touch one row twice in a statement).
 */
function latestByMessage(records: readonly WebhookAttempted[]) {
  const rows = new Map<string, { created_at: string; record: WebhookAttempted }>();
  for (const d of records) {
    const row = rows.get(d.messageId);
    if (!row) rows.set(d.messageId, { created_at: d.at, record: d });
    else if (d.attempt > row.record.attempt) row.record = d;
  }
  return [...rows.values()].map(({ created_at, record: d }) => ({
    id: d.messageId,
    subscription_id: d.subscriptionId,
    organization_id: d.organizationId,
    event_type: d.eventType,
    event_at: d.eventAt,
    test: d.test,
    status: d.outcome,
    attempts: d.attempt,
    last_attempt_at: d.at,
    next_attempt_at: d.nextAttemptAt,
    created_at,
  }));
}

export interface HealthChange {
  subscription_id: string;
  /** Failed messages since the last success of the batch (or in all of it, added to the stored count). */
  failures: number;
  /** The first attempt that did not succeed after the batch's last success (or in all of it). */
  failing_since: string | null;
  /** The batch's last success: when set, the stored row's past no longer counts. */
  last_success_at: string | null;
}

/**
 * The batch's attempts folded per subscription, in log order, as the health row takes them one by one:
 * a success clears the failures and the failing time, a failed message counts one, any attempt that did
 * not succeed starts the failing time. Test sends, and messages skipped (not sent), do not count.
 */
export function foldHealth(records: readonly WebhookAttempted[]): HealthChange[] {
  const changes = new Map<string, HealthChange>();
  for (const d of records) {
    if (d.test || d.outcome === 'skipped') continue;
    let change = changes.get(d.subscriptionId);
    if (!change) {
      change = { subscription_id: d.subscriptionId, failures: 0, failing_since: null, last_success_at: null };
      changes.set(d.subscriptionId, change);
    }
    if (d.outcome === 'succeeded') {
      change.failures = 0;
      change.failing_since = null;
      change.last_success_at = d.at;
      continue;
    }
    if (d.outcome === 'failed') change.failures++;
    change.failing_since ??= d.at;
  }
  return [...changes.values()];
}
