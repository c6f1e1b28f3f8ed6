import * as assert from 'uvu/assert';
import { webhookReactor } from '../../../projections/webhooks/reactor.ts';
import { DELIVERY_KIND } from '../../../src/domain/webhooks/messages.ts';
import { subscriptionStream } from '../../../src/domain/webhooks/subscription-state.ts';
import { projectionSuite, SpecLog } from '../../support/projection-spec.ts';

const test = projectionSuite('webhook reactor (given events, then work items)', webhookReactor);

const at = '2026-01-01T00:00:00.000Z';
const tableCreated = (tableId: string, organizationId: string) => ({
  type: 'TableCreated' as const,
  data: { tableId, organizationId, name: tableId, at },
});
const rowInserted = (tableId: string, rowId: string) => ({
  type: 'RowsInserted' as const,
  data: { tableId, batchId: `b-${rowId}`, rows: [{ rowId, cells: {}, statuses: {} }], at },
});
const subscribed = (organizationId: string, subscriptionId: string) => ({
  type: 'WebhookCreated' as const,
  data: {
    subscriptionId,
    organizationId,
    url: 'https://example.com/hook',
    eventTypes: ['row.created'],
    description: '',
    enabled: true,
    secret: { keyId: 'k', ciphertext: 'c' },
    at,
  },
});

test("row events reach their table's organization's subscriptions, each table's owner read once", async ({
  spec,
}) => {
  const log = new SpecLog();
  const setup = [
    log.append('table-t1', tableCreated('t1', 'o1')),
    log.append('table-t2', tableCreated('t2', 'o2')),
    log.append(subscriptionStream.name('o1', 'wh_1'), subscribed('o1', 'wh_1')),
    log.append(subscriptionStream.name('o2', 'wh_2'), subscribed('o2', 'wh_2')),
  ];
  const rows = ['r1', 'r2', 'r3', 'r4', 'r5'].map((r) =>
    log.append(`rowbatch-t1.b-${r}`, rowInserted('t1', r)),
  );
  const other = log.append('rowbatch-t2.b-r6', rowInserted('t2', 'r6'));
  const unknown = log.append('rowbatch-t9.b-r7', rowInserted('t9', 'r7'));
  const given = await spec.given(setup, [...rows, other, unknown]);
  // The second batch: t1's owner, t2's, t9's (nobody's) read once each, both organizations'
  // subscribers once each, and one insert of the items.
  assert.is(given.statements[1], 6);
  const { rows: items } = await spec.db.pool.query(
    `SELECT group_key, payload->>'eventType' AS type, count(*)::int AS n FROM work_items WHERE kind = $1
     GROUP BY 1, 2 ORDER BY 1`,
    [DELIVERY_KIND],
  );
  assert.equal(items, [
    { group_key: 'wh_1', type: 'row.created', n: 5 },
    { group_key: 'wh_2', type: 'row.created', n: 1 },
  ]);
});

test.run();
