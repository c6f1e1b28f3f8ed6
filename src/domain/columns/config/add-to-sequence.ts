import { z } from 'zod';
import {
  type Config,
  type ConfigContext,
  type ConfigIssue,
  columnKeyRef,
  type ProviderSpec,
  runCondition,
} from './spec.ts';

const SenderAccountIds = z
  .strictObject({
    email: z.string().min(1).max(200).optional(),
    linkedin: z.string().min(1).max(200).optional(),
  })
  .describe('explicit sender account ids keyed by channel');

const AssignmentRoute = z.strictObject({
  assigneeUserId: z.string().min(1).max(200),
  senderAccountIds: SenderAccountIds.optional(),
  weight: z.number().positive().max(1_000_000).optional(),
});

export const AddToSequenceConfigSchema = z
  .strictObject({
    provider: z.literal('add_to_sequence'),
    sequenceId: z
      .string()
      .min(1)
      .max(200)
      .describe('target sequence; must be ACTIVE and linked to this table'),
    sourceLeadColumn: columnKeyRef.describe('key of the add_to_crm or lead_finder column holding lead ids'),
    assignedToUserId: z.string().min(1).max(200).optional(),
    skipActiveSequenceConflicts: z.boolean().optional(),
    senderAccountIds: SenderAccountIds.optional(),
    assignmentPlan: z.array(AssignmentRoute).max(100).optional(),
    routingMode: z.enum(['single', 'round_robin', 'weighted_round_robin']).optional(),
    runCondition,
  })
  .meta({ id: 'AddToSequenceConfig', description: 'config of a column with provider add_to_sequence' });

type SequenceConfig = z.output<typeof AddToSequenceConfigSchema>;

/**
 * The routing a mode needs (the round robins: a plan; single: assignedToUserId, or nobody), and the target: a sequence
 * of the organization, ACTIVE, whose sourceTableId is this table (the run checks both again per row).
 */
function sequenceIssues(raw: Config, ctx: ConfigContext): ConfigIssue[] {
  const config = raw as SequenceConfig;
  const issues: ConfigIssue[] = [];
  const mode = config.routingMode ?? (config.assignmentPlan?.length ? 'round_robin' : 'single');
  if (mode !== 'single' && !config.assignmentPlan?.length)
    issues.push({ path: ['assignmentPlan'], message: `routingMode ${mode} needs an assignmentPlan` });
  if (!ctx.sequences?.has(config.sequenceId)) return issues;
  const sequence = ctx.sequences.get(config.sequenceId);
  if (!sequence || sequence.organizationId !== ctx.organizationId)
    return [...issues, { path: ['sequenceId'], message: 'names no sequence of this organization' }];
  if (sequence.status !== 'ACTIVE')
    issues.push({ path: ['sequenceId'], message: `the sequence must be ACTIVE (it is ${sequence.status})` });
  if (ctx.tableId !== undefined && sequence.sourceTableId !== ctx.tableId)
    issues.push({
      path: ['sequenceId'],
      message: 'the sequence must be linked to this table through its sourceTableId',
    });
  return issues;
}

export const addToSequence: ProviderSpec = {
  schema: AddToSequenceConfigSchema as z.ZodType<Config>,
  refs: (config) => [{ path: ['sourceLeadColumn'], key: String(config.sourceLeadColumn), mustExist: true }],
  check: sequenceIssues,
};
