import { CREDIT_LEDGER } from '../../projections/accounts/credit-ledger.ts';
import { LedgerEntrySchema } from '../../src/domain/runs/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

interface Entry {
  position: string;
  kind: 'grant' | 'reservation' | 'charge' | 'refund' | 'withdrawal';
  amount: number;
  balance_after: number;
  run_id: string | null;
  reason: string | null;
  at: Date;
}

/** GET /api/credits/ledger: every grant, reservation, charge and refund with the balance after, newest first. */
export const creditLedgerRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/credits/ledger',
    {
      config: { access: 'jobs:read' },
      schema: {
        operationId: 'listCreditLedger',
        tags: ['credits'],
        summary: "The organization's credit ledger, newest first",
        description:
          'A reservation holds credits when a run starts (the balance goes down); a charge says what its rows ' +
          'cost (the balance stays: it was reserved); a refund gives back the rest when the run ends.',
        querystring: PageQuery,
        response: { 200: pageOf(LedgerEntrySchema) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const before = cursor ? decodeCursor(cursor, 1, ([r]) => /^\d{1,18}$/.test(r!))[0] : undefined;
      const { rows } = await deps.pool.query<Entry>(
        `SELECT revision::text AS position, kind, amount, balance_after, run_id, reason, at FROM ${CREDIT_LEDGER}
         WHERE organization_id = $1 AND ($2::bigint IS NULL OR revision < $2::bigint)
         ORDER BY revision DESC LIMIT $3`,
        [principalOf(request).organizationId, before ?? null, limit + 1],
      );
      return pageFrom(
        rows,
        limit,
        (e) => ({
          kind: e.kind,
          amount: e.amount,
          balanceAfter: e.balance_after,
          runId: e.run_id,
          reason: e.reason,
          at: e.at.toISOString(),
        }),
        (e) => [e.position],
      );
    },
  );
};
