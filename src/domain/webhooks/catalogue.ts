import { z } from 'zod';
import type { ColumnEvent } from '../columns/events.ts';
import { type ArticleSyncedData, effectiveUpdatedAt } from '../content/article.ts';
import type { RowBatchEvent, RowEvent } from '../rows/events.ts';
import type { RunEvent } from '../runs/events.ts';
import type { TableEvent } from '../tables/events.ts';
import type { WebhookEvent } from './events.ts';

/** The internal events the catalogue reads, by type. */
type Internal = TableEvent | ColumnEvent | RowEvent | RowBatchEvent | RunEvent | WebhookEvent | ArticleEvent;
type ArticleEvent = { type: 'ArticleSynced'; data: ArticleSyncedData };
type DataOf<T extends Internal['type']> = Extract<Internal, { type: T }>['data'];

/** One public message an internal event makes: its data, and what makes its id unique within the event. */
export interface PublicMessage {
  key: string;
  data: unknown;
}

/**
 * One public event type: its name, the JSON shape of its `data` (a zod schema, from which the
 * catalogue's JSON Schema is generated), the internal event it comes from and how that event's data
 * becomes public data (public names only: no internal field, never a secret). `reference` is what a
 * message carries instead when its payload would pass 64 KB: the ids, and where to read the object.
 */
export interface CatalogueEntry {
  readonly type: string;
  readonly description: string;
  readonly from: Internal['type'];
  readonly schema: z.ZodType;
  readonly messages: (data: never) => PublicMessage[];
  readonly reference: (data: never) => Record<string, unknown>;
}

const entry = <T extends Internal['type'], S extends z.ZodType>(e: {
  type: string;
  description: string;
  from: T;
  schema: S;
  messages: (data: DataOf<T>) => { key: string; data: z.infer<S> }[];
  reference: (data: z.infer<S>) => Record<string, unknown>;
}): CatalogueEntry => e as unknown as CatalogueEntry;

const one = <D>(data: D) => [{ key: '', data }];

const tablePath = (tableId: string) => `/api/tables/${encodeURIComponent(tableId)}`;
const rowPath = (tableId: string, rowId: string) => `${tablePath(tableId)}/rows/${encodeURIComponent(rowId)}`;
const columnPath = (tableId: string, columnId: string) =>
  `${tablePath(tableId)}/columns/${encodeURIComponent(columnId)}`;

/** Cells by column id, each value as the column holds it (JSON). */
const Cells = z.record(z.string(), z.unknown());

const TableIds = z.object({ tableId: z.string() });
const ColumnIds = TableIds.extend({ columnId: z.string() });
const RowIds = TableIds.extend({ rowId: z.string() });

/** Every public event type. A feature's new event joins with one entry. */
export const CATALOGUE: readonly CatalogueEntry[] = [
  entry({
    type: 'table.created',
    description: 'A research table was created.',
    from: 'TableCreated',
    schema: TableIds.extend({ name: z.string(), createdAt: z.string() }),
    messages: (d) => one({ tableId: d.tableId, name: d.name, createdAt: d.at }),
    reference: (d) => ({ tableId: d.tableId, link: tablePath(d.tableId) }),
  }),
  entry({
    type: 'table.updated',
    description: 'A research table was renamed.',
    from: 'TableRenamed',
    schema: TableIds.extend({ name: z.string(), updatedAt: z.string() }),
    messages: (d) => one({ tableId: d.tableId, name: d.name, updatedAt: d.at }),
    reference: (d) => ({ tableId: d.tableId, link: tablePath(d.tableId) }),
  }),
  entry({
    type: 'table.deleted',
    description: 'A research table was deleted with its columns and rows.',
    from: 'TableDeleted',
    schema: TableIds.extend({ deletedAt: z.string() }),
    messages: (d) => one({ tableId: d.tableId, deletedAt: d.at }),
    reference: (d) => ({ tableId: d.tableId }),
  }),
  entry({
    type: 'column.created',
    description: 'A column was added to a table (its config is read from the column).',
    from: 'ColumnCreated',
    schema: ColumnIds.extend({
      key: z.string(),
      label: z.string(),
      kind: z.string(),
      dataType: z.string(),
      position: z.number(),
    }),
    messages: (d) =>
      one({
        tableId: d.tableId,
        columnId: d.columnId,
        key: d.key,
        label: d.label,
        kind: d.kind,
        dataType: d.dataType,
        position: d.position,
      }),
    reference: (d) => ({ tableId: d.tableId, columnId: d.columnId, link: columnPath(d.tableId, d.columnId) }),
  }),
  entry({
    type: 'column.updated',
    description: 'A column was changed: the fields named in `changed` have new values (read the column).',
    from: 'ColumnPatched',
    schema: ColumnIds.extend({
      changed: z.array(z.string()),
      label: z.string().optional(),
      position: z.number().optional(),
    }),
    messages: (d) =>
      one({
        tableId: d.tableId,
        columnId: d.columnId,
        changed: Object.keys(d.changes).sort(),
        label: d.changes.label,
        position: d.changes.position,
      }),
    reference: (d) => ({ tableId: d.tableId, columnId: d.columnId, link: columnPath(d.tableId, d.columnId) }),
  }),
  entry({
    type: 'column.deleted',
    description: 'A column left its table (also when the table was deleted).',
    from: 'ColumnRemoved',
    schema: ColumnIds.extend({ key: z.string() }),
    messages: (d) => one({ tableId: d.tableId, columnId: d.columnId, key: d.key }),
    reference: (d) => ({ tableId: d.tableId, columnId: d.columnId }),
  }),
  entry({
    type: 'row.created',
    description: 'A row was inserted (one message per row of an insert); cells by column id.',
    from: 'RowsInserted',
    schema: RowIds.extend({ cells: Cells, createdAt: z.string() }),
    messages: (d) =>
      d.rows.map((row) => ({
        key: row.rowId,
        data: { tableId: d.tableId, rowId: row.rowId, cells: row.cells, createdAt: d.at },
      })),
    reference: (d) => ({ tableId: d.tableId, rowId: d.rowId, link: rowPath(d.tableId, d.rowId) }),
  }),
  entry({
    type: 'row.updated',
    description: 'Cells of a row changed: the changed ones by column id, null for a cell cleared.',
    from: 'RowCellsChanged',
    schema: RowIds.extend({ cells: Cells, updatedAt: z.string() }),
    messages: (d) => one({ tableId: d.tableId, rowId: d.rowId, cells: d.cells, updatedAt: d.at }),
    reference: (d) => ({ tableId: d.tableId, rowId: d.rowId, link: rowPath(d.tableId, d.rowId) }),
  }),
  entry({
    type: 'row.deleted',
    description: 'A row was deleted.',
    from: 'RowDeleted',
    schema: RowIds.extend({ deletedAt: z.string() }),
    messages: (d) => one({ tableId: d.tableId, rowId: d.rowId, deletedAt: d.at }),
    reference: (d) => ({ tableId: d.tableId, rowId: d.rowId }),
  }),
  entry({
    type: 'run.started',
    description: 'A column run started (by a request or by auto-run), with the rows it will run.',
    from: 'RunCreated',
    schema: ColumnIds.extend({
      runId: z.string(),
      trigger: z.string(),
      rows: z.number().int(),
      creditsReserved: z.number().int(),
      createdAt: z.string(),
    }),
    messages: (d) =>
      one({
        tableId: d.tableId,
        columnId: d.columnId,
        runId: d.runId,
        trigger: d.trigger,
        rows: d.selection?.total ?? d.rowIds.length + d.unfundedRowIds.length,
        creditsReserved: d.reserved,
        createdAt: d.at,
      }),
    reference: (d) => ({ runId: d.runId, link: `/api/runs/${encodeURIComponent(d.runId)}` }),
  }),
  entry({
    type: 'run.completed',
    description: 'A column run ended: succeeded, partially_succeeded, failed or stopped.',
    from: 'RunFinished',
    schema: z.object({
      runId: z.string(),
      tableId: z.string().optional(),
      columnId: z.string().optional(),
      status: z.string(),
      creditsCharged: z.number().int(),
      creditsRefunded: z.number().int(),
      error: z.string().nullable(),
      finishedAt: z.string(),
    }),
    messages: (d) =>
      one({
        runId: d.runId,
        tableId: d.tableId,
        columnId: d.columnId,
        status: d.status,
        creditsCharged: d.charged,
        creditsRefunded: d.refunded,
        error: d.error,
        finishedAt: d.at,
      }),
    reference: (d) => ({ runId: d.runId, link: `/api/runs/${encodeURIComponent(d.runId)}` }),
  }),
  entry({
    type: 'article.synced',
    description:
      'A site article was stored, new or changed (public content: every organization may subscribe).',
    from: 'ArticleSynced',
    schema: z.object({
      kind: z.string(),
      slug: z.string(),
      title: z.string(),
      description: z.string().nullable(),
      publishedAt: z.string().nullable(),
      updatedAt: z
        .string()
        .describe("the provider's update time, else its publication time, else when it was fetched"),
    }),
    messages: (d) =>
      one({
        kind: d.kind,
        slug: d.slug,
        title: d.title,
        description: d.description,
        publishedAt: d.publishedAt,
        // As the sync's answer and the read model give it (updated_at): never null.
        updatedAt: effectiveUpdatedAt(d),
      }),
    reference: (d) => ({ kind: d.kind, slug: d.slug }),
  }),
  entry({
    type: 'webhook.disabled',
    description: 'Another subscription of the organization was disabled by the service (a 410, or failing).',
    from: 'WebhookDisabled',
    schema: z.object({ subscriptionId: z.string(), url: z.string(), reason: z.string() }),
    messages: (d) => one({ subscriptionId: d.subscriptionId, url: d.url, reason: d.reason }),
    reference: (d) => ({ subscriptionId: d.subscriptionId }),
  }),
];

export const EVENT_TYPES = CATALOGUE.map((e) => e.type);
export const catalogueEntry = (type: string) => CATALOGUE.find((e) => e.type === type);
/** The internal event types the reactor reads for the catalogue. */
export const CATALOGUE_SOURCES = [...new Set(CATALOGUE.map((e) => e.from))];

/** The most a payload may weigh; a bigger one carries the entry's `reference` instead of its data. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

/** `{ type, timestamp, data }` as sent; over 64 KB, the data becomes its reference (`truncated: true`). */
export function payloadOf(entry: CatalogueEntry, data: unknown, timestamp: string, test = false): string {
  const extra = test ? { test: true } : {};
  const body = JSON.stringify({ type: entry.type, timestamp, data, ...extra });
  if (Buffer.byteLength(body) <= MAX_PAYLOAD_BYTES) return body;
  const reference = (entry.reference as (d: unknown) => Record<string, unknown>)(data);
  return JSON.stringify({ type: entry.type, timestamp, data: { ...reference, truncated: true }, ...extra });
}

/** The catalogue as GET /api/webhooks/event-types lists it: each type with the JSON Schema of its data. */
export const catalogueView = () =>
  CATALOGUE.map((e) => ({
    type: e.type,
    description: e.description,
    schema: z.toJSONSchema(e.schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>,
  }));
