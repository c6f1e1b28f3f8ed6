import { z } from 'zod';
import type { EventsOf } from '../../stream.ts';
import { COLUMN_KINDS, DATA_TYPES } from '../columns/fields.ts';

/**
 * Events of a table's stream (tableStream). Besides the table itself the stream holds which columns
 * belong to it and their keys: appending ColumnAdded with the revision read makes a key unique in its
 * table even when two creates race. The column's own fields live in its own stream.
 */
export const tableEvents = {
  TableCreated: z.object({
    tableId: z.string(),
    organizationId: z.string(),
    name: z.string(),
    at: z.string(),
  }),
  TableRenamed: z.object({ tableId: z.string(), name: z.string(), at: z.string() }),
  ColumnAdded: z.object({
    tableId: z.string(),
    columnId: z.string(),
    key: z.string(),
    kind: z.enum(COLUMN_KINDS),
    dataType: z.enum(DATA_TYPES),
  }),
  ColumnRemoved: z.object({ tableId: z.string(), columnId: z.string(), key: z.string() }),
  /** The table is gone, after a ColumnRemoved for each of its columns in the same append. */
  TableDeleted: z.object({ tableId: z.string(), at: z.string() }),
};

export type TableEvent = EventsOf<typeof tableEvents>;
