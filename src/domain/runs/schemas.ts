import { z } from 'zod';
import { RUN_STATUSES, RUN_TRIGGERS } from './events.ts';

export const RunParams = z.object({ runId: z.string() });

export const RunSchema = z
  .object({
    id: z.string(),
    tableId: z.string(),
    columnId: z.string(),
    trigger: z.enum(RUN_TRIGGERS),
    status: z.enum(RUN_STATUSES),
    counts: z.object({
      total: z.number().int(),
      queued: z.number().int(),
      running: z.number().int(),
      succeeded: z.number().int(),
      failed: z.number().int(),
      skipped: z.number().int(),
    }),
    credits: z.object({
      reserved: z.number().int(),
      charged: z.number().int(),
      refunded: z.number().int(),
    }),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    stoppingAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'Run' });

export type RunView = z.infer<typeof RunSchema>;

export const RUN_ROW_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'skipped'] as const;

export const RunRowSchema = z
  .object({
    rowId: z.string(),
    status: z.enum(RUN_ROW_STATUSES),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    httpStatus: z.number().int().nullable(),
    durationMs: z.number().nullable(),
    attempts: z.number().int().nullable(),
    updatedAt: z.string(),
  })
  .meta({ id: 'RunRow' });

export const LedgerEntrySchema = z
  .object({
    kind: z.enum(['grant', 'reservation', 'charge', 'refund', 'withdrawal']),
    amount: z.number().int(),
    balanceAfter: z.number().int(),
    runId: z.string().nullable(),
    reason: z.string().nullable(),
    at: z.string(),
  })
  .meta({ id: 'CreditLedgerEntry' });
