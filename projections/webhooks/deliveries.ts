import type { DeliveryEvent } from '../../src/domain/webhooks/events.ts';
import type { Projection } from '../../src/projection/types.ts';

/** Logical names of the read model's tables; queries import them from here. */
export const MESSAGES = 'webhook_messages';
export const ATTEMPTS = 'webhook_attempts';
export const HEALTH = 'webhook_health';

/**
 * The delivery history: each message of a subscription with its status and its attempts (kept as
 * long as the read model, at least the 30 days promised), and each subscription's health, which the
 * disable rules read. Test sends are history too, but do not count for health.
 */
export const deliveriesProjection: Projection<DeliveryEvent> = {
  name: 'webhook-deliveries',
  version: 1,
  handles: ['WebhookAttempted'],
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
    for (const { data: d } of events) {
      // A later attempt of a message replaces its status; an earlier one (never, in log order) would not.
      await tx.query(
        `INSERT INTO ${messages} (id, subscription_id, organization_id, event_type, event_at, test, status,
                                  attempts, last_attempt_at, next_attempt_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $9)
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts,
           last_attempt_at = EXCLUDED.last_attempt_at, next_attempt_at = EXCLUDED.next_attempt_at
         WHERE ${messages}.attempts < EXCLUDED.attempts`,
        [
          d.messageId,
          d.subscriptionId,
          d.organizationId,
          d.eventType,
          d.eventAt,
          d.test,
          d.outcome,
          d.attempt,
          d.at,
          d.nextAttemptAt,
        ],
      );
      await tx.query(
        `INSERT INTO ${attempts} (message_id, attempt, at, status_code, duration_ms, response, outcome, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
        [d.messageId, d.attempt, d.at, d.statusCode, d.durationMs, d.response, d.outcome, d.nextAttemptAt],
      );
      if (d.test) continue;
      const succeeded = d.outcome === 'succeeded';
      await tx.query(
        `INSERT INTO ${health} AS h (subscription_id, consecutive_failures, failing_since, last_success_at)
         VALUES ($1, $2, CASE WHEN $3 THEN NULL ELSE $4::timestamptz END, CASE WHEN $3 THEN $4::timestamptz END)
         ON CONFLICT (subscription_id) DO UPDATE SET
           consecutive_failures = CASE WHEN $3 THEN 0 ELSE h.consecutive_failures + $2 END,
           failing_since = CASE WHEN $3 THEN NULL ELSE coalesce(h.failing_since, $4::timestamptz) END,
           last_success_at = CASE WHEN $3 THEN $4::timestamptz ELSE h.last_success_at END`,
        [d.subscriptionId, d.outcome === 'failed' ? 1 : 0, succeeded, d.at],
      );
    }
  },
};
