import type { z } from 'zod';
import { isMemberOf } from '../../../services/accounts/members.ts';
import { followLead } from '../../../services/leads/identity.ts';
import { enrollLead, invalidSender, type Senders, sendersFor } from '../../../services/sequences/enroll.ts';
import { handleCommand, loadState } from '../../../src/command.ts';
import type { Pool } from '../../../src/db/pool.ts';
import type { AddToSequenceConfigSchema } from '../../../src/domain/columns/config/add-to-sequence.ts';
import { isLeadId } from '../../../src/domain/leads/identity.ts';
import { isSequenceId } from '../../../src/domain/sequences/access.ts';
import { routeLead } from '../../../src/domain/sequences/routing.ts';
import type { EnrollOutcome } from '../../../src/domain/sequences/schemas.ts';
import {
  leadEnrollmentsStream,
  routingStream,
  sequenceStream,
} from '../../../src/domain/sequences/streams.ts';
import type { EventStore } from '../../../src/event-store/port.ts';
import type { ExecutionOutcome, Executor, ExecutorContext } from '../executor.ts';
import { runMetadata } from './add-to-crm.ts';

type SequenceConfig = z.output<typeof AddToSequenceConfigSchema>;

/** The service's store and pool; the time is the run's (ExecutorContext.now). */
export interface AddToSequenceDeps {
  store: EventStore;
  pool: Pool;
}

/** The lead ids a cell holds: an id, a list of ids (as JSON text too), or objects with `id`/`leadId`. */
export function leadIdsIn(value: unknown): string[] {
  let v = value;
  if (typeof v === 'string' && v.trim().startsWith('[')) {
    try {
      v = JSON.parse(v);
    } catch {
      return [];
    }
  }
  const items = Array.isArray(v) ? v : [v];
  const ids = items.map((item) =>
    item !== null && typeof item === 'object'
      ? ((item as { id?: unknown; leadId?: unknown }).leadId ?? (item as { id?: unknown }).id)
      : item,
  );
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
}

/** The assignee and senders of one lead under the column's routing mode. */
async function assignment(
  deps: AddToSequenceDeps,
  ctx: ExecutorContext,
  config: SequenceConfig,
  leadId: string,
): Promise<{ assigneeUserId: string | null; senders: Senders | undefined }> {
  const plan = config.assignmentPlan ?? [];
  const mode = config.routingMode ?? (plan.length > 0 ? 'round_robin' : 'single');
  if (mode === 'single' || plan.length === 0)
    return { assigneeUserId: config.assignedToUserId ?? null, senders: config.senderAccountIds };
  const routes = mode === 'round_robin' ? plan.map((r) => ({ ...r, weight: 1 })) : plan;
  const result = await handleCommand({
    store: deps.store,
    stream: routingStream.name(ctx.tableId, ctx.column.id, config.sequenceId),
    decider: routeLead,
    command: { leadId, plan: routes },
    metadata: runMetadata(ctx),
    now: ctx.now(),
    // Every concurrent row of the column decides here one after another: enough retries for all of them.
    maxRetries: 1000,
  });
  const assigneeUserId = result.state.routed.get(leadId)!;
  const route = plan.find((r) => r.assigneeUserId === assigneeUserId);
  return { assigneeUserId, senders: route?.senderAccountIds ?? config.senderAccountIds };
}

/** Why a lead is not enrolled before routing it (so that routing counts only leads that are enrolled). */
async function precheck(
  deps: AddToSequenceDeps,
  ctx: ExecutorContext,
  config: SequenceConfig,
  leadId: string,
) {
  const lead = isLeadId(leadId) ? await followLead(deps.store, leadId) : undefined;
  if (lead?.status !== 'live' || lead.organizationId !== ctx.organizationId)
    return { outcome: 'failed' as const, reason: 'lead_not_found' };
  const { state } = await loadState(deps.store, leadEnrollmentsStream.name(lead.id), leadEnrollmentsStream);
  if (state.has(config.sequenceId)) return { outcome: 'skipped' as const, reason: 'already_enrolled' };
  if (config.skipActiveSequenceConflicts) {
    for (const [sequenceId, e] of state)
      if (e.status === 'active' || e.status === 'paused')
        return { outcome: 'skipped' as const, reason: `already_active_in:${sequenceId}` };
  }
  return undefined;
}

/**
 * The add_to_sequence provider: enrolls the leads of the row's lead column in the sequence, each with
 * an assignee by the routing mode and sender accounts (the route's, the config's, or the assignee's
 * defaults), through the same enrollment as the API. The sequence is checked per row: one no longer
 * ACTIVE, or no longer linked to this table, is a row error. The cell gets one outcome per lead.
 */
export function addToSequenceExecutor(deps: AddToSequenceDeps): Executor {
  return async (ctx): Promise<ExecutionOutcome> => {
    const started = Date.now();
    const meta = () => ({ durationMs: Date.now() - started, attempts: 1 });
    const fail = (code: string, message: string): ExecutionOutcome => ({
      ok: false,
      error: { code, message },
      meta: meta(),
    });
    const config = ctx.column.config as SequenceConfig;
    const sequence = isSequenceId(config.sequenceId)
      ? (await loadState(deps.store, sequenceStream.name(config.sequenceId), sequenceStream)).state
      : undefined;
    if (!sequence?.exists || sequence.organizationId !== ctx.organizationId)
      return fail('sequence_not_found', `No sequence ${config.sequenceId} in this organization.`);
    if (sequence.status !== 'ACTIVE')
      return fail('sequence_not_active', `Sequence ${sequence.id} is ${sequence.status}, not ACTIVE.`);
    if (sequence.sourceTableId !== ctx.tableId)
      return fail(
        'sequence_not_linked',
        `Sequence ${sequence.id} is not linked to this table (its sourceTableId).`,
      );
    const leadIds = leadIdsIn(ctx.row.cells[config.sourceLeadColumn]);
    if (leadIds.length === 0)
      return fail('no_leads', `The column ${config.sourceLeadColumn} holds no lead ids in this row.`);
    const outcomes: (EnrollOutcome & { assigneeUserId?: string })[] = [];
    for (const leadId of leadIds) {
      if (ctx.signal.aborted) return fail('aborted', 'the run stopped');
      const refused = await precheck(deps, ctx, config, leadId);
      if (refused) {
        outcomes.push({ leadId, ...refused });
        continue;
      }
      const { assigneeUserId, senders } = await assignment(deps, ctx, config, leadId);
      if (assigneeUserId && !(await isMemberOf(deps.store, ctx.organizationId, assigneeUserId))) {
        outcomes.push({ leadId, outcome: 'failed', reason: `assignee_not_found:${assigneeUserId}` });
        continue;
      }
      const bad = await invalidSender(deps.store, ctx.organizationId, senders);
      if (bad) {
        outcomes.push({ leadId, outcome: 'failed', reason: `sender_not_found:${bad.path}` });
        continue;
      }
      const senderAccountIds = await sendersFor(
        deps.pool,
        ctx.organizationId,
        assigneeUserId,
        senders,
        deps.store,
      );
      const { position: _p, ...outcome } = await enrollLead(
        { store: deps.store, clock: ctx.now },
        {
          organizationId: ctx.organizationId,
          sequence,
          leadId,
          assigneeUserId,
          senderAccountIds,
          skipActiveSequenceConflicts: config.skipActiveSequenceConflicts ?? false,
        },
        runMetadata(ctx),
      );
      outcomes.push(assigneeUserId ? { ...outcome, assigneeUserId } : outcome);
    }
    if (outcomes.every((o) => o.outcome === 'failed'))
      return fail('enrollment_failed', outcomes.map((o) => `${o.leadId}: ${o.reason}`).join('; '));
    return { ok: true, value: outcomes, meta: meta() };
  };
}
