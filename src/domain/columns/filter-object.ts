import { z } from 'zod';
import { checkOperatorValues, describeOperators, FILTER_OPERATORS } from './operators.ts';

const FilterRule = z
  .strictObject({
    columnKey: z.string().min(1).max(63),
    operator: z.enum(FILTER_OPERATORS),
    // Checked per operator below; the metadata documents the accepted types.
    value: z
      .unknown()
      .meta({ anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] })
      .optional()
      .describe('Only for value-based operators'),
  })
  .superRefine(
    (rule, ctx) => {
      for (const issue of checkOperatorValues(String(rule.operator), rule)) {
        ctx.addIssue({ code: 'custom', path: [issue.field], message: issue.message });
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );

/**
 * A per-request filter (contract 2.4), used with scope=filtered by column runs and estimates. It does
 * not set a column's saved run condition. The contract shows AND/OR in either case; both are accepted
 * and `normalizeFilterMode` gives the upper-case form.
 */
export const FilterObjectSchema = z
  .strictObject({
    mode: z.enum(['AND', 'OR', 'and', 'or']),
    filters: z.array(FilterRule).min(1).max(100),
  })
  .meta({
    id: 'FilterObject',
    description: `Rules combined with AND or OR. Operators: ${describeOperators(FILTER_OPERATORS)}`,
  });

export type FilterObject = z.infer<typeof FilterObjectSchema>;

export const normalizeFilterMode = (mode: FilterObject['mode']) => mode.toUpperCase() as 'AND' | 'OR';
