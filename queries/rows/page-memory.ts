import type { FastifyReply } from 'fastify';
import { BudgetWaitAborted, ByteBudget, type Reservation } from '../../src/byte-budget.ts';
import { AppError } from '../../src/errors.ts';
import { PAGE_BYTES, type PageMemory } from './row-page.ts';

/**
 * The cell bytes that pages of rows being read or sent may hold in this process at once, and what one
 * organization's pages may hold of it: 8 full pages in all, 4 of one organization, so that one
 * organization's large reads leave room for the others' (and the process's memory, and with it every
 * other request's latency, does not grow with the number of large reads at once).
 */
export const ROW_PAGES_BYTES = 8 * PAGE_BYTES;
export const ROW_PAGES_BYTES_PER_ORGANIZATION = 4 * PAGE_BYTES;

/** How long a read waits for its share before it is a 503. */
export const PAGE_MEMORY_WAIT_MS = 30_000;

/** One per process: every rows page of every organization draws on it (tests read its accounting). */
export const rowPagesMemory = new ByteBudget({
  total: ROW_PAGES_BYTES,
  perGroup: ROW_PAGES_BYTES_PER_ORGANIZATION,
});

/**
 * The share of `rowPagesMemory` one answer draws on, for its organization. What it takes is held
 * until the answer has been written out or its connection has closed, since the page lives in the
 * process until then; a wait ends early when the client goes away, or after PAGE_MEMORY_WAIT_MS as a
 * 503 `unavailable`. A share the budget grants at once (nobody waiting, and the bytes fit whatever
 * this organization holds) is taken without a timer or an abort signal: the usual read costs a lookup.
 */
export function pageMemoryFor(
  reply: FastifyReply,
  organizationId: string,
  budget: ByteBudget = rowPagesMemory,
): PageMemory {
  const held: Reservation[] = [];
  /** What ends the waits under way when the connection closes. */
  const waits = new Set<() => void>();
  let done = false;
  const releaseAll = () => {
    done = true;
    for (const giveUp of waits) giveUp();
    waits.clear();
    for (const reservation of held.splice(0)) reservation.release();
  };
  if (reply.raw.closed || reply.raw.destroyed) releaseAll();
  else reply.raw.once('close', releaseAll);

  const waitFor = async (bytes: number) => {
    const giveUp = new AbortController();
    const timer = setTimeout(() => giveUp.abort(), PAGE_MEMORY_WAIT_MS);
    timer.unref();
    const onClose = () => giveUp.abort();
    waits.add(onClose);
    try {
      return await budget.acquire(organizationId, bytes, giveUp.signal);
    } catch (error) {
      if (!(error instanceof BudgetWaitAborted)) throw error;
      throw busy();
    } finally {
      clearTimeout(timer);
      waits.delete(onClose);
    }
  };
  return {
    async acquire(bytes) {
      if (done) throw busy();
      const reservation = grantedAtOnce(budget, bytes)
        ? await budget.acquire(organizationId, bytes)
        : await waitFor(bytes);
      // The client went away while this waited: nobody will read the page.
      if (done) {
        reservation.release();
        throw busy();
      }
      held.push(reservation);
      return reservation;
    },
  };
}

/**
 * Whether `budget` grants `bytes` without a wait to any group: nobody waits, and they fit under the
 * total and under a group's share even if every byte in use were that group's.
 */
function grantedAtOnce(budget: ByteBudget, bytes: number): boolean {
  const { total, perGroup } = budget.options;
  const want = Math.min(Math.max(0, Math.ceil(bytes)), perGroup, total);
  return budget.queued === 0 && budget.inUse + want <= Math.min(total, perGroup);
}

const busy = () =>
  new AppError(
    'unavailable',
    'Too many large pages of rows are being read at once; retry shortly, or ask for a smaller limit.',
  );
