import { z } from 'zod';
import { leadsProjection } from '../../projections/leads/leads.ts';
import { LeadIdentity } from '../../services/leads/identity.ts';
import { loadLeadForWrite } from '../../services/leads/load.ts';
import { handleCommand } from '../../src/command.ts';
import { leadNotFound, leadView } from '../../src/domain/leads/access.ts';
import type { LeadEvent } from '../../src/domain/leads/events.ts';
import { LEAD_FIELDS, type LeadFields, normaliseOrRefuse } from '../../src/domain/leads/lead.ts';
import { leadStream } from '../../src/domain/leads/lead-state.ts';
import { LeadParams, LeadSchema, PatchLeadBody } from '../../src/domain/leads/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { MANUAL_SOURCE } from './create-lead.ts';

type Edit = Extract<LeadEvent, { type: 'LeadEdited' }>['data'];

/** An explicit edit of a live lead: the one way a value is overwritten. */
export const editLead = leadStream.decider((edit: Omit<Edit, 'at'>, state, now): LeadEvent[] => {
  if (state.status !== 'live') throw leadNotFound(edit.leadId);
  return [{ type: 'LeadEdited', data: { ...edit, at: now.toISOString() } }];
});

export const deleteLead = leadStream.decider((command: { leadId: string }, state, now): LeadEvent[] => {
  if (state.status !== 'live') throw leadNotFound(command.leadId);
  return [{ type: 'LeadDeleted', data: { leadId: command.leadId, at: now.toISOString() } }];
});

/**
 * PATCH /api/leads/{leadId}: sets the fields sent (null clears), replaces the email or phone list
 * sent. New keys it gives the lead are claimed, but an edit never merges leads: a key another lead
 * holds stays with it.
 */
export const patchLeadRoute: RouteModule = (app, deps) => {
  app.patch(
    '/api/leads/:leadId',
    {
      config: { access: 'leads:write' },
      schema: {
        operationId: 'patchLead',
        tags: ['leads'],
        summary: 'Edit a lead (overwrites what it sends)',
        params: LeadParams,
        body: PatchLeadBody,
        response: { 200: LeadSchema },
      },
    },
    async (request) => {
      const { leadId } = request.params;
      const principal = principalOf(request);
      await loadLeadForWrite(deps.store, leadId, principal);
      const body = request.body;
      const data = normaliseOrRefuse(
        Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null)),
        MANUAL_SOURCE,
        false,
      );
      const fields: Partial<LeadFields> = {};
      for (const field of LEAD_FIELDS) {
        if (body[field] === null) fields[field] = null;
        else if (body[field] !== undefined) fields[field] = data[field];
      }
      const metadata = eventMetadata(request);
      const result = await handleCommand({
        store: deps.store,
        stream: leadStream.name(leadId),
        decider: editLead,
        command: {
          leadId,
          fields,
          ...(body.emailAddresses ? { emailAddresses: data.emailAddresses } : {}),
          ...(body.phoneNumbers ? { phoneNumbers: data.phoneNumbers } : {}),
        },
        metadata,
        now: deps.clock(),
      });
      const state = await new LeadIdentity(deps, principal.organizationId, metadata).claimKeys(leadId, false);
      await readYourWrites(deps, result.appended?.position, [leadsProjection]);
      return leadView(state);
    },
  );
};

/** DELETE /api/leads/{leadId}: 204; its identity keys may be claimed by a new lead afterwards. */
export const deleteLeadRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/leads/:leadId',
    {
      config: { access: 'leads:write' },
      schema: {
        operationId: 'deleteLead',
        tags: ['leads'],
        summary: 'Delete a lead',
        params: LeadParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { leadId } = request.params;
      await loadLeadForWrite(deps.store, leadId, principalOf(request));
      const result = await handleCommand({
        store: deps.store,
        stream: leadStream.name(leadId),
        decider: deleteLead,
        command: { leadId },
        metadata: eventMetadata(request),
        now: deps.clock(),
      });
      await readYourWrites(deps, result.appended?.position, [leadsProjection]);
      return reply.code(204).send(null);
    },
  );
};
