import type { z } from 'zod';
import { followLead, LeadIdentity } from '../../../services/leads/identity.ts';
import type { AddToCrmConfigSchema } from '../../../src/domain/columns/config/add-to-crm.ts';
import { identityKeys, normaliseLead } from '../../../src/domain/leads/lead.ts';
import type { EventStore } from '../../../src/event-store/port.ts';
import type { ExecutionOutcome, Executor, ExecutorContext } from '../executor.ts';
import { crmRecords } from './crm-records.ts';

/** The service's store; the time is the run's (ExecutorContext.now). */
export interface AddToCrmDeps {
  store: EventStore;
}

/** Who wrote the events of a run's executors: the run, per row (the correlation id). */
export const runMetadata = (ctx: ExecutorContext) => ({
  correlationId: ctx.idempotencyKey,
  actor: `run:${ctx.runId}`,
});

/**
 * The add_to_crm provider: the row's lead records (crm-records.ts), each normalised and merged through
 * the same identity engine as POST /api/leads. The cell gets the ids of the leads the row ended in.
 * Values that are not what their field says (a LinkedIn URL that is no profile) are left out; a row with
 * no record that has an identity key is a row error saying what it had.
 */
export function addToCrmExecutor(deps: AddToCrmDeps): Executor {
  return async (ctx): Promise<ExecutionOutcome> => {
    const started = Date.now();
    const meta = () => ({ durationMs: Date.now() - started, attempts: 1 });
    const config = ctx.column.config as z.output<typeof AddToCrmConfigSchema>;
    const source = `add_to_crm:${ctx.column.id}`;
    const records = crmRecords(config, ctx.row.cells).map((raw) => {
      const { data, errors } = normaliseLead(raw, source);
      return {
        data: { ...data, sources: [{ tableId: ctx.tableId, rowId: ctx.row.id, columnId: ctx.column.id }] },
        errors,
      };
    });
    const identifiable = records.filter((r) => identityKeys(r.data).length > 0);
    if (identifiable.length === 0) {
      const invalid = [...new Set(records.flatMap((r) => r.errors.map((e) => `${e.path} (${e.message})`)))];
      const why =
        records.length === 0
          ? 'the row yields no lead record (an empty array source?)'
          : `no record of the row has a LinkedIn URL, an email, or a full name with a company domain${
              invalid.length ? `; invalid: ${invalid.join(', ')}` : ''
            }`;
      return { ok: false, error: { code: 'no_identifiable_lead', message: why }, meta: meta() };
    }
    const identity = new LeadIdentity(
      { store: deps.store, clock: ctx.now },
      ctx.organizationId,
      runMetadata(ctx),
    );
    const upserted: string[] = [];
    for (const record of identifiable) {
      if (ctx.signal.aborted)
        return { ok: false, error: { code: 'aborted', message: 'the run stopped' }, meta: meta() };
      upserted.push((await identity.upsert(record.data)).leadId);
    }
    // A later record of the row may have folded an earlier one's lead into another: name where each ended.
    const leadIds: string[] = [];
    for (const id of upserted) {
      const final = (await followLead(deps.store, id))?.id ?? id;
      if (!leadIds.includes(final)) leadIds.push(final);
    }
    return { ok: true, value: leadIds, meta: meta() };
  };
}
