import { z } from 'zod';
import { CELL_STATUSES, cellsObject } from './events.ts';

// Ids are checked for their form in the handlers: a malformed id names nothing and answers 404, not 400.
export const RowParams = z.object({ tableId: z.string(), rowId: z.string() });

export const MAX_BATCH = 1000;

export const CellStatusSchema = z
  .object({
    status: z.enum(CELL_STATUSES),
    error: z.string().optional(),
    runId: z.string().optional(),
    updatedAt: z.string(),
  })
  .meta({ id: 'CellStatus', description: 'The state of a non-input cell: runs fill these in' });

export const RowSchema = z
  .object({
    id: z.string(),
    cells: z
      .record(z.string(), z.unknown())
      .describe('Values by column key; a cell never written (or cleared) is absent'),
    cellStatus: z.record(z.string(), CellStatusSchema).describe('By key, for every non-input column'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Row' });

// Documented as the z.record it stands for: an object of any values.
export const CellsSchema = cellsObject()
  .meta({ type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} })
  .describe(
    'Values by column key, each of its column dataType: text (<= 100,000 characters), number, boolean, ' +
      'date (ISO 8601, stored in UTC), url (absolute http/https), email, json (<= 256 KB serialized)',
  );

export const RowIdsSchema = z.array(z.string().max(64)).min(1).max(MAX_BATCH);
