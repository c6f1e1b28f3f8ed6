import { z } from 'zod';
import type { EventsOf } from '../../stream.ts';
import { AUTO_RUN, COLUMN_KINDS, DATA_TYPES, ORIGINS, STATUSES } from './fields.ts';

const config = z.record(z.string(), z.unknown());

/**
 * Events of a column's own stream (columnStream). A stream per column, not the table's stream:
 * concurrent PATCHes of different columns never conflict, a PATCH reads one short stream, and the
 * stream is the column's history as GET .../history shows it.
 */
const ColumnCreated = z.object({
  tableId: z.string(),
  columnId: z.string(),
  key: z.string(),
  label: z.string(),
  kind: z.enum(COLUMN_KINDS),
  dataType: z.enum(DATA_TYPES),
  origin: z.enum(ORIGINS),
  status: z.enum(STATUSES),
  autoRun: z.enum(AUTO_RUN),
  config,
  position: z.number(),
  isImportant: z.boolean(),
});

/** Only what changed; `config` holds changed keys with their new value and removed keys with null. */
const ColumnPatched = z.object({
  tableId: z.string(),
  columnId: z.string(),
  changes: z
    .object({
      label: z.string().optional(),
      position: z.number().optional(),
      isImportant: z.boolean().optional(),
      autoRun: z.enum(AUTO_RUN).optional(),
      config: config.optional(),
    })
    .refine((c) => Object.keys(c).length > 0, 'a patch changes something'),
});

/** A reorder of the table's columns moved this one. */
const ColumnMoved = z.object({ tableId: z.string(), columnId: z.string(), position: z.number() });

export const columnEvents = { ColumnCreated, ColumnPatched, ColumnMoved };

export type ColumnEvent = EventsOf<typeof columnEvents>;
