import { z } from 'zod';
import { FilterObjectSchema } from '../../src/domain/columns/filter-object.ts';
import { RowIdsSchema } from '../../src/domain/rows/schemas.ts';

export const EstimateBody = z
  .strictObject({
    scope: z.enum(['all', 'filtered', 'selected']).describe('all rows, the rows filter selects, or rowIds'),
    filter: FilterObjectSchema.optional().describe('Required with scope filtered, and only then'),
    rowIds: RowIdsSchema.optional().describe('Required with scope selected, and only then'),
    onlyEmpty: z.boolean().default(false).describe('Skip rows whose cell of this column holds a value'),
  })
  .superRefine((body, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (body.scope === 'filtered' && !body.filter) issue('filter', 'scope filtered needs a filter');
    if (body.scope !== 'filtered' && body.filter) issue('filter', 'a filter goes with scope filtered');
    if (body.scope === 'selected' && !body.rowIds) issue('rowIds', 'scope selected needs rowIds');
    if (body.scope !== 'selected' && body.rowIds) issue('rowIds', 'rowIds go with scope selected');
  });

/** Which rows a run (or its estimate) covers: the body of the estimate and of a column run. */
export type RunScope = z.infer<typeof EstimateBody>;
