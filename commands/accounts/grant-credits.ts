import { organizationStream } from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';

/**
 * An operator's grant of credits to an organization (`stk admin credits grant`). There is no HTTP route:
 * no API key may give its own organization credits; operators act on the service's database directly,
 * and the grant's event names them (its metadata's actor) and says why (`reason`).
 */
export interface GrantCredits {
  organizationId: string;
  amount: number;
  reason: string;
}

/** One grant at most: a typo of a few zeros is refused rather than granted. */
export const MAX_GRANT = 1_000_000;
/** The organizations read model keeps the balance as a 32-bit integer. */
export const MAX_BALANCE = 2_000_000_000;

export const grantCredits = organizationStream.decider((command: GrantCredits, state) => {
  const { organizationId, amount } = command;
  const reason = command.reason.trim();
  if (!state.exists) throw new AppError('not_found', `No organization ${organizationId}.`);
  const refuse = (path: string, message: string) =>
    new AppError('validation_failed', `Invalid grant: ${path}`, { errors: [{ path, message }] });
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_GRANT) {
    throw refuse('amount', `a whole number from 1 to ${MAX_GRANT}`);
  }
  if (reason === '' || reason.length > 500) throw refuse('reason', 'say why, in at most 500 characters');
  if (state.balance + amount > MAX_BALANCE) {
    throw refuse('amount', `the balance (${state.balance}) would pass ${MAX_BALANCE}`);
  }
  return [{ type: 'CreditsGranted', data: { organizationId, amount, reason } }];
});
