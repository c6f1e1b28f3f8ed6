import { sentOn } from '../../processes/tasks/email-worker.ts';
import {
  SENDER_ACCOUNTS,
  type StoredSender,
  senderFromRow,
} from '../../projections/sequences/sender-accounts.ts';
import { unconfigured } from '../../services/search/adapters.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { LinkedinLimitsAnswer, LinkedinStatusAnswer } from '../../src/domain/linkedin/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** The organization's live sender accounts of type linkedin, oldest first. */
async function linkedinSenders(deps: ServiceDeps, organizationId: string) {
  const { rows } = await deps.pool.query<StoredSender>(
    `SELECT * FROM ${SENDER_ACCOUNTS} WHERE organization_id = $1 AND type = 'linkedin'
     ORDER BY created_at, id LIMIT 1000`,
    [organizationId],
  );
  return rows
    .map(senderFromRow)
    .map(({ id, address, userId, dailyLimit }) => ({ id, address, userId, dailyLimit }));
}

/**
 * GET /api/linkedin/status: the linkedin sender accounts, and whether a LinkedIn data provider is
 * configured and answers (asked now, free of credits). Never a 503: saying so is its purpose.
 */
export const linkedinStatusRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/linkedin/status',
    {
      config: { access: 'linkedin:read' },
      schema: {
        operationId: 'getLinkedinStatus',
        tags: ['linkedin'],
        summary:
          'LinkedIn sender accounts, and whether the LinkedIn data provider is configured and reachable',
        response: { 200: LinkedinStatusAnswer },
      },
    },
    async (request) => {
      const senderAccounts = await linkedinSenders(deps, principalOf(request).organizationId);
      const linkedin = deps.parts.search.adapters.linkedin;
      if (!linkedin) {
        const problem = { code: 'provider_unavailable', detail: unconfigured('linkedin') };
        return {
          provider: null,
          configured: false,
          reachable: false,
          connectedAccounts: null,
          problem,
          senderAccounts,
        };
      }
      const status = await linkedin.status();
      return {
        provider: linkedin.name,
        configured: true,
        reachable: status.reachable,
        connectedAccounts: status.connectedAccounts ?? null,
        problem: status.problem ?? null,
        senderAccounts,
      };
    },
  );
};

/**
 * GET /api/linkedin/limits: per linkedin sender account, its dailyLimit and what today (UTC) used of
 * it, by the counter the daily limit of sends is held to (the task sends recorded through it).
 */
export const linkedinLimitsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/linkedin/limits',
    {
      config: { access: 'linkedin:read' },
      schema: {
        operationId: 'getLinkedinLimits',
        tags: ['linkedin'],
        summary: 'Daily limits of the LinkedIn sender accounts: used and remaining today (UTC)',
        response: { 200: LinkedinLimitsAnswer },
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      const day = deps.clock().toISOString().slice(0, 10);
      const senders = await linkedinSenders(deps, organizationId);
      const accounts = await Promise.all(
        senders.map(async (s) => {
          const usedToday = await sentOn(deps, organizationId, s.id, day);
          return { ...s, usedToday, remainingToday: Math.max(0, s.dailyLimit - usedToday) };
        }),
      );
      return { day, accounts };
    },
  );
};
