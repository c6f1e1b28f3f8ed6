import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { backoffMs } from '../db/backoff.ts';
import type { Pool } from '../db/pool.ts';
import { LeaseRenewal } from './lease-renewal.ts';
import {
  type HeldSettlement,
  release,
  type Settlement,
  settleAndClaim,
  settleMany,
  sweep,
  type WorkItem,
} from './queue.ts';
import { RetryNudges } from './retry-nudges.ts';

export type Outcome = Settlement;

/** Whose lease a handler works under: a handler can check it is still this one's (a fence). */
export interface Lease {
  owner: string;
}

/** A kind of background work and how to do one item of it (a feature declares these). */
export interface WorkerSpec {
  kind: string;
  /** Items of this kind handled at once by this process. */
  concurrency: number;
  /** How long a claim holds without renewal; renewed every third of it while `handle` runs. */
  leaseMs?: number;
  /**
   * How often an idle worker looks for due items (other processes' items, retries coming due); a
   * worker that keeps finding nothing looks half as often each time, down to once every
   * `MAX_IDLE_POLL_MS` (or `pollMs`, when longer). Items this process enqueues wake it (`nudge`).
   */
  pollMs?: number;
  /**
   * Does one item. May run more than once for one item (a holder that died mid-item), so what it
   * records must be idempotent (events with deterministic ids). A throw is retried with backoff, and
   * after `MAX_THROWS` claims the item is dead.
   */
  handle(item: WorkItem, signal: AbortSignal, lease: Lease): Promise<Outcome>;
  /**
   * How finished items are settled and the next claimed in one round trip, when not by `settleAndClaim`
   * (e.g. `settleAndClaimSticky`, src/work/batch.ts).
   */
  settleAndClaim?: typeof settleAndClaim;
}

export interface WorkerOptions {
  clock: () => Date;
  logger: Logger;
  /** This process's name on its leases. */
  owner?: string;
}

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_POLL_MS = 100;
/**
 * The longest an idle worker waits between looks. Every kind polling every 100 ms was, during a column
 * run, a claim every few milliseconds finding nothing: much of the database's work.
 */
export const MAX_IDLE_POLL_MS = 1_000;
/** Claims of an item whose handler keeps throwing, before it is given up as dead. */
export const MAX_THROWS = 5;
const SWEEP_EVERY_MS = 3_600_000;
/** Settled items are kept this long (ids stay taken, so a reactor's repeat enqueues nothing). */
export const SETTLED_RETENTION_MS = 30 * 24 * 3_600_000;

export const processOwner = () => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/**
 * Claims and handles items of one kind: as many at once as `concurrency` allows, renewing the leases of
 * what it holds. What finishes is settled by the loop together with the next claim, in one round trip
 * (`settleAndClaim`): items finishing while a round trip is out go in the next one, so a busy worker
 * pays one round trip per batch of items, not a settle and a claim per item. An item keeps its slot
 * (and its lease renewed) until its settlement is stored. It survives the database going away: errors
 * in the loop are logged and retried with backoff, settlements kept until they are stored.
 */
export class Worker {
  private readonly inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /** Finished items whose outcome is not stored yet (still in `inFlight`: their slots stay taken). */
  private toSettle: HeldSettlement[] = [];
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private stopped = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private woken = false;
  /** Renews the leases of what is in flight while the worker runs. */
  private readonly leases: LeaseRenewal;
  /** Alarms for retries due later, cleared at stop. */
  private readonly retries: RetryNudges;
  private lastSweep = 0;

  constructor(
    private readonly pool: Pool,
    readonly spec: WorkerSpec,
    private readonly options: WorkerOptions,
  ) {
    this.owner = options.owner ?? processOwner();
    this.leaseMs = spec.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = spec.pollMs ?? DEFAULT_POLL_MS;
    this.leases = new LeaseRenewal(
      pool,
      { owner: this.owner, leaseMs: this.leaseMs, kind: spec.kind, logger: options.logger },
      this.inFlight,
    );
    this.retries = new RetryNudges({
      clock: options.clock,
      nudge: () => this.nudge(),
      stopped: () => this.stopped,
    });
  }

  start(): void {
    if (this.loop) return;
    this.stopped = false;
    this.leases.start();
    this.loop = this.run();
  }

  /** Wakes an idle worker now (new items were enqueued). */
  nudge(): void {
    this.woken = true;
    this.wake?.();
  }

  /**
   * Stops claiming, aborts what is in flight (handlers answer promptly on their signal) and waits for
   * it to settle; what could not settle is released for another process to take at once.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
    this.leases.stop();
    this.retries.clear();
    for (const { controller } of this.inFlight.values()) controller.abort(new Error('shutting down'));
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.done));
    // What finished is stored (once: at worst its lease runs out and it is done again, recording nothing
    // new); the rest is given back. Only what is still leased to us: settled items keep their outcome.
    const settling = this.toSettle.splice(0);
    await settleMany(this.pool, this.owner, settling).catch(() => {});
    for (const { id } of settling) this.inFlight.delete(id);
    await release(this.pool, this.owner, [...this.inFlight.keys()]).catch(() => {});
    this.inFlight.clear();
  }

  private async run(): Promise<void> {
    let failures = 0;
    // The last claim filled every free slot: more is likely due.
    let busy = false;
    let lastClaim = 0;
    // Looks in a row that found nothing with nothing in hand.
    let idle = 0;
    const batch = Math.max(1, Math.ceil(this.spec.concurrency / 4));
    while (!this.stopped) {
      const settling = this.toSettle.splice(0);
      const free = this.spec.concurrency - this.inFlight.size + settling.length;
      // With more due and nothing to settle, claim once a quarter of the slots are free (or a poll
      // interval has passed): one round trip for several items, not one per item that finishes.
      const waited = performance.now() - lastClaim;
      if (settling.length === 0 && busy && free < batch && this.inFlight.size > 0 && waited < this.pollMs) {
        await this.pause(this.pollMs - waited, true);
        continue;
      }
      let claimed = 0;
      try {
        const request = {
          kind: this.spec.kind,
          owner: this.owner,
          limit: free,
          leaseMs: this.leaseMs,
          now: this.options.clock(),
        };
        const items = await (this.spec.settleAndClaim ?? settleAndClaim)(this.pool, {
          ...request,
          settlements: settling,
        });
        for (const { id } of settling) this.inFlight.delete(id);
        lastClaim = performance.now();
        claimed = items.length;
        for (const item of items) this.begin(item);
        await this.sweepNowAndThen();
        failures = 0;
      } catch (error) {
        // Not stored: settled with the next round trip (the items keep their slots and leases meanwhile).
        this.toSettle.unshift(...settling);
        failures++;
        this.options.logger.warn({ err: error, kind: this.spec.kind }, 'work claim failed; retrying');
        await this.pause(backoffMs(failures), true);
        continue;
      }
      busy = claimed > 0 && claimed === free;
      idle = claimed === 0 && settling.length === 0 && this.inFlight.size === 0 ? idle + 1 : 0;
      // Items that finished during the round trip are stored, and slots refilled, at once.
      if (this.toSettle.length > 0 && !this.stopped) continue;
      if (busy) await this.pause(this.pollMs, true);
      else await this.pause(idle > 1 ? this.idlePollMs(idle) : this.pollMs);
    }
  }

  private idlePollMs(idle: number): number {
    return Math.min(this.pollMs * 2 ** (idle - 1), Math.max(this.pollMs, MAX_IDLE_POLL_MS));
  }

  /** Sleeps until `ms` pass or a nudge; `untilSlot` also wakes when an item in flight finishes. */
  private pause(ms: number, untilSlot = false): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.woken && !untilSlot) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = undefined;
        self.woken = false;
        resolve();
      }
      this.wake = done;
    });
  }

  private begin(item: WorkItem): void {
    const controller = new AbortController();
    const done = this.handle(item, controller.signal);
    this.inFlight.set(item.id, { controller, done });
  }

  private async handle(item: WorkItem, signal: AbortSignal): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await this.spec.handle(item, signal, { owner: this.owner });
    } catch (error) {
      if (signal.aborted) {
        // Released at stop, or taken over: not this holder's to settle.
        if (!this.stopped) this.inFlight.delete(item.id);
        return;
      }
      this.options.logger.error({ err: error, kind: item.kind, item: item.id }, 'work item failed');
      const message = error instanceof Error ? error.message : String(error);
      outcome =
        item.attempts >= MAX_THROWS
          ? { status: 'dead', error: message }
          : {
              status: 'retry',
              at: new Date(this.options.clock().getTime() + 1000 * 2 ** item.attempts),
              error: message,
            };
    }
    // The outcome is recorded already (events); the loop stores the settlement with its next round trip.
    this.toSettle.push({ id: item.id, outcome });
    this.wake?.();
    // A retry of this process's is due at a time it knows: looked for then, not at the next idle poll.
    if (outcome.status === 'retry') this.retries.at(outcome.at);
  }

  private async sweepNowAndThen(): Promise<void> {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    await sweep(this.pool, SETTLED_RETENTION_MS);
  }
}
