import { settlementEvents } from '../../src/domain/accounts/credits.ts';
import { organizationStream } from '../../src/domain/accounts/streams.ts';
import type { EventStore } from '../../src/event-store/port.ts';

/**
 * Appends a run's (or a search call's) settlement on its organization's stream: the events
 * settlementEvents decides, with no expected revision (a charge moves nothing and a refund only adds,
 * so no decision can be undone by it) and ids from the run (a repeat lands once).
 */
export async function settleCredits(
  store: Pick<EventStore, 'append'>,
  settlement: { organizationId: string; runId: string; charged: number; refunded: number },
): Promise<void> {
  const events = settlementEvents(settlement);
  if (events.length > 0) await store.append(organizationStream.name(settlement.organizationId), events);
}
