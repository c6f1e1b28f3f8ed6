import { z } from 'zod';

// Ids are checked for their form in the handlers: a malformed id names nothing and answers 404, not 400.
export const TableParams = z.object({ tableId: z.string() });
export const ColumnParams = z.object({ tableId: z.string(), columnId: z.string() });

export const TableSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    rowCount: z
      .number()
      .int()
      .describe(
        'Rows in the table: kept by the rows read model as rows come and go, not counted per request',
      ),
  })
  .meta({ id: 'Table' });

export const TableNameSchema = z.string().trim().min(1).max(200);
