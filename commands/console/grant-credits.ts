import { z } from 'zod';
import { creditLedgerProjection } from '../../projections/accounts/credit-ledger.ts';
import { organizationsProjection } from '../../projections/accounts/organizations.ts';
import { handleCommand } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { organizationStream } from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';
import { readYourWrites } from '../../src/http/commands.ts';
import type { ZodApp } from '../../src/http/routes.ts';
import { grantCredits } from '../accounts/grant-credits.ts';
import { consoleActor } from './actor.ts';
import { REFUSE_KEY } from './projection-actions.ts';

const GrantForm = z.object({
  _csrf: z.string().max(100).optional(),
  amount: z.string().max(20),
  reason: z.string().max(1000),
});

/**
 * POST /admin/organizations/:organizationId/credits: `stk admin credits grant` from the console. The
 * same decider (commands/accounts/grant-credits.ts, its limits included) appends CreditsGranted to the
 * organization's stream with `admin:<operator>@console` as its actor and the request id as its
 * correlation id; answered once the balance and the ledger show it.
 */
export function grantCreditRoutes(app: ZodApp, deps: ServiceDeps): void {
  app.post(
    '/admin/organizations/:organizationId/credits',
    {
      config: { access: 'operator', idempotency: REFUSE_KEY },
      schema: { hide: true, params: z.object({ organizationId: z.string().max(100) }), body: GrantForm },
    },
    async (request, reply) => {
      const { organizationId } = request.params;
      const { amount: amountText, reason } = request.body;
      if (!/^\d{1,9}$/.test(amountText.trim()))
        throw new AppError('validation_failed', 'Invalid grant: amount', {
          errors: [{ path: 'amount', message: 'a whole number of credits' }],
        });
      const actor = consoleActor(request);
      const result = await handleCommand({
        store: deps.store,
        stream: organizationStream.name(organizationId),
        decider: grantCredits,
        command: { organizationId, amount: Number(amountText.trim()), reason },
        metadata: { correlationId: request.id, actor: `admin:${actor}` },
        now: deps.clock(),
      });
      request.log.info(
        { operator: request.operator?.name, organizationId, amount: amountText },
        'console grant',
      );
      await readYourWrites(deps, result.appended?.position, [
        organizationsProjection,
        creditLedgerProjection,
      ]);
      return reply.redirect(`/admin/organizations/${encodeURIComponent(organizationId)}?done=granted`, 303);
    },
  );
}
