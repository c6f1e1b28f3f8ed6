import { AppError } from '../../errors.ts';
import { NOTHING_DONE_CODES, SKIP_CODES } from '../runs/charge-rules.ts';
import { eventIdOf } from '../runs/run-state.ts';
import type { OrganizationEvent } from './events.ts';
import { organizationStream } from './streams.ts';

export interface ReserveCredits {
  organizationId: string;
  runId: string;
  /** Eligible rows of the run. */
  rows: number;
  creditsPerRow: number;
}

/**
 * A run's reservation, decided on the organization stream with the revision read (a concurrent grant,
 * reservation or refund makes it decide again), so the balance can never go below zero. It holds what
 * the balance covers of the estimate, whole rows only: all rows when it can, fewer when it cannot (the
 * rest are skipped as `insufficient_credits`), and refuses with 402 when not even one row is covered.
 */
export const reserveCredits = organizationStream.decider((command: ReserveCredits, state) => {
  const { organizationId, runId, rows, creditsPerRow } = command;
  if (!state.exists || state.abandoned) throw new AppError('not_found', `No organization ${organizationId}.`);
  if (rows === 0 || creditsPerRow === 0) return [];
  const covered = Math.min(rows, Math.floor(Math.max(0, state.balance) / creditsPerRow));
  if (covered === 0) {
    throw new AppError(
      'insufficient_credits',
      `The balance (${state.balance}) does not cover one row (${creditsPerRow} credits).`,
      { balance: state.balance, creditsPerRow },
    );
  }
  return [{ type: 'CreditsReserved', data: { organizationId, runId, amount: covered * creditsPerRow } }];
});

/**
 * A run's settlement: what its rows cost is charged and the rest of the reservation comes back. Ids
 * from the run make a repeat (the run's end worked twice) a no-op; the append needs no expected
 * revision: a charge moves nothing and a refund only adds, so no decision can be undone by it.
 */
export function settlementEvents(settlement: {
  organizationId: string;
  runId: string;
  charged: number;
  refunded: number;
}): (OrganizationEvent & { id: string })[] {
  const { organizationId, runId, charged, refunded } = settlement;
  const data = (amount: number) => ({ organizationId, runId, amount });
  return [
    ...(charged > 0
      ? [{ id: eventIdOf('charge', runId), type: 'CreditsCharged' as const, data: data(charged) }]
      : []),
    ...(refunded > 0
      ? [{ id: eventIdOf('refund', runId), type: 'CreditsRefunded' as const, data: data(refunded) }]
      : []),
  ];
}

/**
 * What one row costs: the price per row when the provider was called (a success or its error);
 * nothing when the executor says nothing was sent or written (`noChargeCodes`: the provider's charge
 * rules, the common set unless its registry entry says otherwise), the row was skipped, or the
 * executor broke (`internal`: our fault, not the customer's); nothing for an answer from the search
 * cache.
 */
export const rowCharge = (
  creditsPerRow: number,
  error: { code: string } | null,
  cached = false,
  noChargeCodes: ReadonlySet<string> = NOTHING_DONE_CODES,
) =>
  cached ||
  (error && (noChargeCodes.has(error.code) || SKIP_CODES.has(error.code) || error.code === 'internal'))
    ? 0
    : creditsPerRow;
