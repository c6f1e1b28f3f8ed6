import { z } from 'zod';
import type { DomainEvent } from '../../command.ts';
import { eventRegistry } from '../../event-store/registry.ts';
import { COLUMN_KINDS, DATA_TYPES } from '../columns/fields.ts';

/**
 * Events of a table's stream (streams.table). Besides the table itself the stream holds which
 * columns belong to it and their keys: appending ColumnAdded with the revision read makes a key
 * unique in its table even when two creates race. The column's own fields live in its own stream.
 */
export const TableCreated = eventRegistry.register(
  'TableCreated',
  z.object({ tableId: z.string(), organizationId: z.string(), name: z.string(), at: z.string() }),
);
export const TableRenamed = eventRegistry.register(
  'TableRenamed',
  z.object({ tableId: z.string(), name: z.string(), at: z.string() }),
);
export const ColumnAdded = eventRegistry.register(
  'ColumnAdded',
  z.object({
    tableId: z.string(),
    columnId: z.string(),
    key: z.string(),
    kind: z.enum(COLUMN_KINDS),
    dataType: z.enum(DATA_TYPES),
  }),
);
export const ColumnRemoved = eventRegistry.register(
  'ColumnRemoved',
  z.object({ tableId: z.string(), columnId: z.string(), key: z.string() }),
);

export type TableEvent =
  | DomainEvent<'TableCreated', z.infer<typeof TableCreated>>
  | DomainEvent<'TableRenamed', z.infer<typeof TableRenamed>>
  | DomainEvent<'ColumnAdded', z.infer<typeof ColumnAdded>>
  | DomainEvent<'ColumnRemoved', z.infer<typeof ColumnRemoved>>;
