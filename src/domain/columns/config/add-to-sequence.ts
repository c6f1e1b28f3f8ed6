import { z } from 'zod';
import { type Config, columnKeyRef, type ProviderSpec, runCondition } from './spec.ts';

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

/**
 * The shape only: that the sequence is ACTIVE and linked to this table is checked once sequences
 * exist in this service.
 */
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

export const addToSequence: ProviderSpec = {
  schema: AddToSequenceConfigSchema as z.ZodType<Config>,
  refs: (config) => [{ path: ['sourceLeadColumn'], key: String(config.sourceLeadColumn), mustExist: true }],
};
