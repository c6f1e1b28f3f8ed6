import { LEADS, type StoredLead } from '../../projections/leads/leads.ts';
import { readableLead } from '../../src/domain/leads/access.ts';
import { isLeadId } from '../../src/domain/leads/identity.ts';
import { LeadParams, LeadSchema, type LeadView, ListLeadsQuery } from '../../src/domain/leads/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

const leadFromRow = (row: StoredLead): LeadView => ({
  id: row.id,
  ...row.data,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** GET /api/leads: the organization's leads, oldest first, a page at a time; `q` searches. */
export const listLeadsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/leads',
    {
      config: { access: 'leads:read' },
      schema: {
        operationId: 'listLeads',
        tags: ['leads'],
        summary: 'List the leads of the organization',
        querystring: ListLeadsQuery,
        response: { 200: pageOf(LeadSchema) },
      },
    },
    async (request) => {
      const { limit, cursor, q } = request.query;
      const [createdAt, id] = cursor ? decodeCursor(cursor, 2, ([at]) => isTimestamp(at!)) : [null, ''];
      const { rows } = await deps.pool.query<StoredLead>(
        `SELECT id, organization_id, data, search, created_at, updated_at FROM ${LEADS}
         WHERE organization_id = $1 AND ($2::text IS NULL OR (created_at, id) > ($2::text, $3))
           AND ($4::text IS NULL OR search LIKE '%' || $4 || '%')
         ORDER BY created_at, id LIMIT $5`,
        [
          principalOf(request).organizationId,
          createdAt,
          id,
          q ? likeLiteral(q.toLowerCase()) : null,
          limit + 1,
        ],
      );
      return pageFrom(rows, limit, leadFromRow, (row) => [row.created_at, row.id]);
    },
  );
};

/** GET /api/leads/{leadId} */
export const getLeadRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/leads/:leadId',
    {
      config: { access: 'leads:read' },
      schema: {
        operationId: 'getLead',
        tags: ['leads'],
        summary: 'Get a lead',
        params: LeadParams,
        response: { 200: LeadSchema },
      },
    },
    async (request) => {
      const { leadId } = request.params;
      const { rows } = isLeadId(leadId)
        ? await deps.pool.query<StoredLead>(
            `SELECT id, organization_id, data, search, created_at, updated_at FROM ${LEADS} WHERE id = $1`,
            [leadId],
          )
        : { rows: [] };
      return leadFromRow(readableLead(rows[0], leadId, principalOf(request)));
    },
  );
};
