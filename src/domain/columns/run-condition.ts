import { z } from 'zod';
import { parseJsonPath } from './json-path.ts';
import {
  checkOperatorValues,
  describeOperators,
  OPERATOR_RULES,
  OPERATORS,
  type Operator,
} from './operators.ts';
import type { ColumnRef } from './references.ts';

export const MISSING_POLICIES = ['unknown', 'true', 'false'] as const;
export type MissingPolicy = (typeof MISSING_POLICIES)[number];

export const MAX_DEPTH = 20;
export const MAX_NODES = 500;

export interface ConditionLeaf {
  type: 'condition';
  columnKey?: string;
  columnId?: string;
  jsonPath?: string;
  operator: Operator;
  missingPolicy: MissingPolicy;
  value?: unknown;
  value2?: unknown;
}

export interface ConditionGroup {
  type: 'all' | 'any' | 'not';
  children: RunCondition[];
  missingPolicy?: MissingPolicy;
}

export type RunCondition = ConditionLeaf | ConditionGroup;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const OperatorSchema = z.enum(OPERATORS).meta({
  id: 'RunConditionOperator',
  description:
    'Operators, what they decide about a present value and what value/value2 they take. A leaf whose value ' +
    'is missing (absent, null, "", [], {}, or a jsonPath that does not resolve) yields its missingPolicy ' +
    '(unknown, true or false); all is AND, any is OR, not negates and unknown stays unknown; a row is ' +
    `eligible only when the whole condition is true. ${describeOperators()}`,
  'x-value-rules': OPERATOR_RULES,
});

export const MissingPolicySchema = z
  .enum(MISSING_POLICIES)
  .describe('The result when a referenced value is missing: unknown, true or false.');

// Declared as unknown and checked per operator below (one source of rules); the metadata keeps the
// documented type precise.
const conditionValue = z
  .unknown()
  .meta({
    anyOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] } },
    ],
  })
  .optional();

const Leaf = z
  .strictObject({
    type: z.literal('condition'),
    columnKey: z.string().min(1).max(63).optional(),
    columnId: z.string().min(1).max(64).optional(),
    jsonPath: z
      .string()
      .min(1)
      .max(500)
      .refine((path) => parseJsonPath(path) !== undefined, 'a path is keys and [index] steps joined by dots')
      .optional()
      .describe(
        'Path inside a JSON column value: keys and [index] steps joined by dots, e.g. company.domains[0]',
      ),
    operator: OperatorSchema,
    missingPolicy: MissingPolicySchema,
    value: conditionValue,
    value2: conditionValue,
  })
  .superRefine(
    (node, ctx) => {
      if (node.columnKey === undefined && node.columnId === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['columnKey'],
          message: 'a condition needs columnKey or columnId',
        });
      }
      for (const issue of checkOperatorValues(String(node.operator), node)) {
        ctx.addIssue({ code: 'custom', path: [issue.field], message: issue.message });
      }
    },
    // Report the value rules even when another field of the node is wrong too.
    { when: (payload) => isObject(payload.value) },
  );

const Group = z.strictObject({
  type: z.enum(['all', 'any']),
  missingPolicy: MissingPolicySchema.optional(),
  get children(): z.ZodArray<z.ZodType<RunCondition>> {
    return z.array(RunConditionSchema).min(1, 'all and any need at least one child');
  },
});

const Not = z.strictObject({
  type: z.literal('not'),
  missingPolicy: MissingPolicySchema.optional(),
  get children(): z.ZodArray<z.ZodType<RunCondition>> {
    return z.array(RunConditionSchema).length(1, 'not takes exactly one child');
  },
});

/**
 * The saved, recursive predicate at config.runCondition (contract 2.5). Bounds (depth, node count)
 * are checked by `runConditionBounds` before this schema is applied, so parsing stays shallow.
 */
export const RunConditionSchema: z.ZodType<RunCondition> = z
  .discriminatedUnion('type', [Leaf, Group, Not])
  .meta({
    id: 'RunCondition',
    description:
      `A node is a condition leaf (columnKey or columnId, operator, missingPolicy, value/value2 per operator) ` +
      `or a group: all/any with at least one child, not with exactly one. At most ${MAX_DEPTH} levels and ` +
      `${MAX_NODES} nodes. See RunConditionOperator for the operators.`,
  });

/** Depth and size limits, checked without recursion so that a hostile body cannot exhaust the stack. */
export function runConditionBounds(root: unknown): string | undefined {
  const stack: { node: unknown; depth: number }[] = [{ node: root, depth: 1 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (!isObject(node)) continue;
    nodes++;
    if (depth > MAX_DEPTH) return `a run condition may nest at most ${MAX_DEPTH} levels`;
    if (nodes > MAX_NODES) return `a run condition may hold at most ${MAX_NODES} nodes`;
    if (Array.isArray(node.children))
      for (const child of node.children) stack.push({ node: child, depth: depth + 1 });
  }
  return undefined;
}

/** Every column a (valid) run condition names, with the path of each reference. */
export function runConditionRefs(node: RunCondition, path: PropertyKey[]): ColumnRef[] {
  if (node.type === 'condition') {
    // Both given: one reference, and the checker requires that they name the same column.
    const at = [...path, node.columnId !== undefined ? 'columnId' : 'columnKey'];
    return [
      { path: at, key: node.columnKey, id: node.columnId, mustExist: true, mustBeJson: !!node.jsonPath },
    ];
  }
  return node.children.flatMap((child, i) => runConditionRefs(child, [...path, 'children', i]));
}
