import { leadsProjection } from '../../projections/leads/leads.ts';
import { LeadIdentity } from '../../services/leads/identity.ts';
import { leadView } from '../../src/domain/leads/access.ts';
import { normaliseOrRefuse } from '../../src/domain/leads/lead.ts';
import { CreatedLeadSchema, CreateLeadBody } from '../../src/domain/leads/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export const leadPath = (leadId: string) => `/api/leads/${leadId}`;

/** Emails and phones a caller sends without a source are labelled so. */
export const MANUAL_SOURCE = 'manual';

/**
 * POST /api/leads: a record by hand, through the same identity engine as add_to_crm: 201 with a new
 * lead, or 200 with `merged: true` and the lead it joined.
 */
export const createLeadRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/leads',
    {
      config: { access: 'leads:write' },
      schema: {
        operationId: 'createLead',
        tags: ['leads'],
        summary: 'Create a lead, or merge the record into the lead it is the same person as',
        body: CreateLeadBody,
        response: { 200: CreatedLeadSchema, 201: CreatedLeadSchema },
      },
    },
    async (request, reply) => {
      const data = normaliseOrRefuse(request.body, MANUAL_SOURCE, true);
      const principal = principalOf(request);
      const identity = new LeadIdentity(deps, principal.organizationId, eventMetadata(request));
      const upserted = await identity.upsert(data);
      await readYourWrites(deps, upserted.position, [leadsProjection]);
      const body = { ...leadView(upserted.state), merged: !upserted.created };
      if (!upserted.created) return reply.code(200).send(body);
      return reply.code(201).header('location', leadPath(upserted.leadId)).send(body);
    },
  );
};
