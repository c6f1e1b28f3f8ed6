import type { PoolClient } from '../../src/db/pool.ts';
import { CATALOGUE, CATALOGUE_SOURCES, type CatalogueEntry } from '../../src/domain/webhooks/catalogue.ts';
import type { WebhookEvent } from '../../src/domain/webhooks/events.ts';
import { KEY_EXPIRY_KIND, keyExpiryItem } from '../../src/domain/webhooks/key-expiry.ts';
import { DELIVERY_KIND, deliveryItem } from '../../src/domain/webhooks/messages.ts';
import type { RecordedEvent } from '../../src/event-store/port.ts';
import type { Projection } from '../../src/projection/types.ts';
import type { WorkItemInput } from '../../src/work/queue.ts';

const SUBSCRIBERS = 'webhook_reactor_subscriptions';
const TABLE_OWNERS = 'webhook_reactor_tables';

interface Subscriber {
  id: string;
  organizationId: string;
}

/**
 * Turns the log into deliveries: for each event of a catalogue type, one work item per message and
 * per subscription of the event's organization that takes that type, enqueued in the transaction that
 * moves this reactor's checkpoint, so each is enqueued once and none is missed. Which subscriptions
 * take what, and which organization owns a table (rows and columns name only their table), are kept
 * here, folded from the same log in the same order: a subscription gets the events after its creation,
 * whatever the lag of the read models. A rebuild enqueues only for events past the live checkpoint
 * (ApplyContext.enqueue), so it sends no message again; still, never bump the version without need:
 * a rebuild reads the whole log again.
 */
export const webhookReactor: Projection = {
  name: 'webhook-reactor',
  version: 1,
  enqueues: [DELIVERY_KIND, KEY_EXPIRY_KIND],
  handles: [
    ...new Set([
      'WebhookCreated',
      'WebhookUpdated',
      'WebhookSecretRotated',
      'WebhookDeleted',
      'TableCreated',
      ...CATALOGUE_SOURCES,
    ]),
  ],
  tables: {
    [SUBSCRIBERS]: (t) => [
      `CREATE TABLE ${t} (
        subscription_id text PRIMARY KEY,
        organization_id text NOT NULL,
        event_types text[] NOT NULL,
        active boolean NOT NULL
      )`,
      `CREATE INDEX ${t}_by_organization ON ${t} (organization_id) WHERE active`,
    ],
    [TABLE_OWNERS]: (t) => [`CREATE TABLE ${t} (table_id text PRIMARY KEY, organization_id text NOT NULL)`],
  },
  async apply(events, { tx, table, enqueue }) {
    const subscribers = table(SUBSCRIBERS);
    const owners = table(TABLE_OWNERS);
    const items: WorkItemInput[] = [];
    // Per batch: who takes what, read once per organization (a batch is mostly one organization's),
    // and each table's owner read once (an import's thousand row events name one table).
    const cache = new Map<string, Subscriber[]>();
    const tableOwners = new Map<string, string | undefined>();
    for (const event of events) {
      if (event.type.startsWith('Webhook')) {
        await foldSubscription(tx, subscribers, event as RecordedEvent & WebhookEvent);
        cache.clear();
      }
      // The replaced secret's data key is destroyed when it stops signing (added without a rebuild:
      // rotations logged before this was deployed keep their old key until the subscription goes).
      if (event.type === 'WebhookSecretRotated') {
        items.push(keyExpiryItem(event.data as Parameters<typeof keyExpiryItem>[0]));
      }
      if (event.type === 'TableCreated') {
        const { tableId, organizationId } = event.data as { tableId: string; organizationId: string };
        await tx.query(`INSERT INTO ${owners} VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
          tableId,
          organizationId,
        ]);
        // As stored: the first owner recorded stays (a repeat of the event changes nothing).
        if (tableOwners.get(tableId) === undefined) tableOwners.delete(tableId);
      }
      for (const entry of CATALOGUE) {
        if (entry.from !== event.type) continue;
        const organization = await organizationOf(
          tx,
          owners,
          event.data as Record<string, unknown>,
          tableOwners,
        );
        if (organization === undefined) continue;
        const key = `${organization}\0${entry.type}`;
        let subs = cache.get(key);
        if (!subs) {
          subs = await subscribersOf(tx, subscribers, organization, entry.type);
          cache.set(key, subs);
        }
        items.push(...itemsOf(entry, event, subs));
      }
    }
    await enqueue(items);
  },
};

function itemsOf(entry: CatalogueEntry, event: RecordedEvent, subs: readonly Subscriber[]): WorkItemInput[] {
  const messages = (entry.messages as (d: unknown) => { key: string; data: unknown }[])(event.data);
  // A subscription disabled is told about to the organization's other subscriptions, not itself.
  const self =
    event.type === 'WebhookDisabled' ? (event.data as { subscriptionId: string }).subscriptionId : '';
  return subs
    .filter((s) => s.id !== self)
    .flatMap((sub) => messages.map((message) => deliveryItem(sub, entry, event, message)));
}

/**
 * The organization an event belongs to: its own field, or its table's owner. null: public content
 * (a site article), for every organization's subscriptions; undefined: nobody's (a table unknown).
 */
async function organizationOf(
  tx: PoolClient,
  owners: string,
  data: Record<string, unknown>,
  known: Map<string, string | undefined>,
): Promise<string | null | undefined> {
  if (typeof data.organizationId === 'string') return data.organizationId;
  if (typeof data.tableId !== 'string') return null;
  if (known.has(data.tableId)) return known.get(data.tableId);
  const { rows } = await tx.query<{ organization_id: string }>(
    `SELECT organization_id FROM ${owners} WHERE table_id = $1`,
    [data.tableId],
  );
  known.set(data.tableId, rows[0]?.organization_id);
  return rows[0]?.organization_id;
}

async function subscribersOf(
  tx: PoolClient,
  subscribers: string,
  organization: string | null,
  type: string,
): Promise<Subscriber[]> {
  const { rows } = await tx.query<{ subscription_id: string; organization_id: string }>(
    `SELECT subscription_id, organization_id FROM ${subscribers}
     WHERE active AND ($1::text IS NULL OR organization_id = $1) AND event_types && ARRAY[$2, '*']
     ORDER BY subscription_id`,
    [organization, type],
  );
  return rows.map((r) => ({ id: r.subscription_id, organizationId: r.organization_id }));
}

/** Who takes what: created, changed (types, paused or enabled again), disabled by us, deleted. */
async function foldSubscription(tx: PoolClient, t: string, event: WebhookEvent): Promise<void> {
  const d = event.data;
  switch (event.type) {
    case 'WebhookCreated':
      await tx.query(`INSERT INTO ${t} VALUES ($1, $2, $3, $4) ON CONFLICT (subscription_id) DO NOTHING`, [
        d.subscriptionId,
        d.organizationId,
        event.data.eventTypes,
        event.data.enabled,
      ]);
      return;
    case 'WebhookUpdated': {
      const { eventTypes, enabled } = event.data.changes;
      await tx.query(
        `UPDATE ${t} SET event_types = coalesce($2, event_types), active = coalesce($3, active)
         WHERE subscription_id = $1`,
        [d.subscriptionId, eventTypes ?? null, enabled ?? null],
      );
      return;
    }
    case 'WebhookDisabled':
      await tx.query(`UPDATE ${t} SET active = false WHERE subscription_id = $1`, [d.subscriptionId]);
      return;
    case 'WebhookDeleted':
      await tx.query(`DELETE FROM ${t} WHERE subscription_id = $1`, [d.subscriptionId]);
      return;
    default:
      return;
  }
}
