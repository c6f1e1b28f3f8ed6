import { z } from 'zod';
import { enrollmentsProjection } from '../../projections/sequences/enrollments.ts';
import { isMemberOf } from '../../services/accounts/members.ts';
import { enrollLead, invalidSender, sendersFor } from '../../services/sequences/enroll.ts';
import { loadSequenceForWrite } from '../../services/sequences/load.ts';
import { badReference } from '../../src/domain/sequences/access.ts';
import { EnrollBody, EnrollOutcomeSchema, SequenceParams } from '../../src/domain/sequences/schemas.ts';
import { AppError } from '../../src/errors.ts';
import type { Position } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** Leads enrolled at once: enough to keep the store busy, not all 500 at a time. */
const CONCURRENCY = 8;

/**
 * POST /api/sequences/{id}/enrollments: one outcome per lead, in the order sent. The assignee and the
 * sender accounts are checked first (a 400 naming the field); each lead is then enrolled, skipped or
 * failed on its own.
 */
export const enrollRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/sequences/:sequenceId/enrollments',
    {
      config: { access: 'sequences:run' },
      schema: {
        operationId: 'enrollLeads',
        tags: ['sequences'],
        summary: 'Enroll leads in a sequence',
        params: SequenceParams,
        body: EnrollBody,
        response: { 200: z.object({ data: z.array(EnrollOutcomeSchema) }) },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { organizationId } = principal;
      const { state: sequence } = await loadSequenceForWrite(
        deps.store,
        request.params.sequenceId,
        principal,
      );
      if (sequence.status === 'ARCHIVED')
        throw new AppError(
          'invalid_transition',
          `Sequence ${sequence.id} is ARCHIVED: nobody can be enrolled.`,
          {
            currentStatus: sequence.status,
            allowedActions: [],
          },
        );
      const { leadIds, assigneeUserId, senderAccountIds, skipActiveSequenceConflicts } = request.body;
      if (assigneeUserId !== undefined && !(await isMemberOf(deps.store, organizationId, assigneeUserId)))
        throw badReference('assigneeUserId', `no user ${assigneeUserId} in this organization`);
      const bad = await invalidSender(deps.store, organizationId, senderAccountIds);
      if (bad) throw badReference(bad.path, bad.message);
      const senders = await sendersFor(
        deps.pool,
        organizationId,
        assigneeUserId ?? null,
        senderAccountIds,
        deps.store,
      );
      const metadata = eventMetadata(request);
      // A lead named twice is enrolled once, in its first place; its repeats answer what a second
      // request would (deciding them concurrently would let either place win).
      const unique = [...new Set(leadIds)];
      const results = new Map<string, Awaited<ReturnType<typeof enrollLead>>>();
      let next = 0;
      const worker = async () => {
        while (next < unique.length) {
          const leadId = unique[next++]!;
          const request = {
            organizationId,
            sequence,
            leadId,
            assigneeUserId: assigneeUserId ?? null,
            senderAccountIds: senders,
            skipActiveSequenceConflicts: skipActiveSequenceConflicts ?? false,
          };
          results.set(leadId, await enrollLead(deps, request, metadata));
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, unique.length) }, worker));
      const seen = new Set<string>();
      const outcomes = leadIds.map((leadId) => {
        const first = results.get(leadId)!;
        if (!seen.has(leadId)) {
          seen.add(leadId);
          return first;
        }
        return first.outcome === 'enrolled'
          ? { leadId, outcome: 'skipped' as const, reason: 'already_enrolled' }
          : { ...first, position: undefined };
      });
      const last = outcomes.reduce<Position | undefined>(
        (max, o) => (o.position && (!max || o.position.commit > max.commit) ? o.position : max),
        undefined,
      );
      await readYourWrites(deps, last, [enrollmentsProjection]);
      return { data: outcomes.map(({ position: _p, ...outcome }) => outcome) };
    },
  );
};
