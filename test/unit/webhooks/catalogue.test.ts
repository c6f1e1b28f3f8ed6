import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import {
  CATALOGUE,
  catalogueView,
  MAX_PAYLOAD_BYTES,
  payloadOf,
} from '../../../src/domain/webhooks/catalogue.ts';
import { sampleOf } from '../../../src/domain/webhooks/sample.ts';

const REQUIRED = [
  'table.created',
  'table.deleted',
  'column.created',
  'column.updated',
  'column.deleted',
  'row.created',
  'row.updated',
  'row.deleted',
  'run.started',
  'run.completed',
  'article.synced',
  'webhook.disabled',
];

test('the catalogue has the types of the issue, each once', () => {
  const types = CATALOGUE.map((e) => e.type);
  for (const type of REQUIRED) assert.ok(types.includes(type), type);
  assert.is(new Set(types).size, types.length);
});

test("each type's JSON Schema comes from its zod schema, and a sample built from it passes that schema", () => {
  for (const entry of catalogueView()) {
    assert.is(entry.schema.type, 'object', entry.type);
    const sample = sampleOf(entry.schema as never);
    const zod = CATALOGUE.find((e) => e.type === entry.type)!.schema;
    assert.ok(zod.safeParse(sample).success, `${entry.type}: ${JSON.stringify(sample)}`);
  }
});

test('internal events map to public data without internal fields', () => {
  const rows = CATALOGUE.find((e) => e.type === 'row.created')!;
  const messages = (rows.messages as (d: unknown) => { key: string; data: unknown }[])({
    tableId: 'tbl_1',
    batchId: 'batch_1',
    rows: [
      { rowId: 'row_1', cells: { col_a: 1 }, statuses: { col_b: 'queued' } },
      { rowId: 'row_2', cells: {}, statuses: {} },
    ],
    at: '2026-01-01T00:00:00.000Z',
  });
  assert.is(messages.length, 2, 'one message per row');
  assert.equal(messages[0]!.data, {
    tableId: 'tbl_1',
    rowId: 'row_1',
    cells: { col_a: 1 },
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  assert.ok(rows.schema.safeParse(messages[0]!.data).success);
  assert.ok(!JSON.stringify(messages).includes('batch_1'));
});

test("article.synced's updatedAt is the article's updated_at: the provider's, else published, else fetched", () => {
  const synced = CATALOGUE.find((e) => e.type === 'article.synced')!;
  const messages = synced.messages as unknown as (d: unknown) => { data: { updatedAt: string } }[];
  const base = {
    kind: 'blog',
    slug: 's',
    title: 'T',
    description: null,
    fetchedAt: '2026-03-03T00:00:00.000Z',
  };
  const updatedAt = (d: object) => messages({ ...base, ...d })[0]!.data.updatedAt;
  assert.is(
    updatedAt({ publishedAt: '2026-01-01T00:00:00Z', updatedAt: '2026-02-02T00:00:00Z' }),
    '2026-02-02T00:00:00Z',
  );
  assert.is(updatedAt({ publishedAt: '2026-01-01T00:00:00Z', updatedAt: null }), '2026-01-01T00:00:00Z');
  assert.is(updatedAt({ publishedAt: null, updatedAt: null }), '2026-03-03T00:00:00.000Z');
  assert.ok(
    synced.schema.safeParse(messages({ ...base, publishedAt: null, updatedAt: null })[0]!.data).success,
  );
});

test('a payload over 64 KB carries the ids and a link instead of the object', () => {
  const rows = CATALOGUE.find((e) => e.type === 'row.updated')!;
  const data = { tableId: 'tbl_1', rowId: 'row_1', cells: { col_a: 'x'.repeat(70_000) }, updatedAt: 'now' };
  const body = payloadOf(rows, data, '2026-01-01T00:00:00.000Z');
  assert.ok(Buffer.byteLength(body) <= MAX_PAYLOAD_BYTES);
  assert.equal(JSON.parse(body), {
    type: 'row.updated',
    timestamp: '2026-01-01T00:00:00.000Z',
    data: { tableId: 'tbl_1', rowId: 'row_1', link: '/api/tables/tbl_1/rows/row_1', truncated: true },
  });
  const small = JSON.parse(payloadOf(rows, { ...data, cells: {} }, 't', true));
  assert.is(small.test, true);
  assert.equal(small.data.cells, {});
  assert.ok(
    z.object({ type: z.string(), timestamp: z.string(), data: z.unknown() }).safeParse(small).success,
  );
});

test.run();
