/** The longest delay a Node timer takes (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A worker's alarms for retries of its own (src/work/worker.ts): a retry this process set is due at a
 * time it knows, so it is looked for then, not at the next idle poll.
 */
export class RetryNudges {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly options: {
      /** The clock a claim compares run times with. */
      clock: () => Date;
      /** Wakes the worker. */
      nudge: () => void;
      /** While the worker is stopped, nothing is set and a timer that fires does nothing. */
      stopped: () => boolean;
    },
  ) {}

  /**
   * Nudges once `clock()` has reached `at`, the time a claim compares run times with. A timer counts on
   * another clock: the wall clock set back meanwhile (a virtual machine's is, now and then) would have a
   * nudge on time by the timer find its item not due yet, and it would then wait for the next poll.
   */
  at(at: Date): void {
    if (this.options.stopped()) return;
    const ms = at.getTime() - this.options.clock().getTime();
    if (ms <= 0) {
      this.options.nudge();
      return;
    }
    // A timer waits at most MAX_TIMER_MS (longer, Node fires it at once): a retry further off (a sequence
    // step weeks ahead) is looked at again then.
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.at(at);
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    timer.unref();
    this.timers.add(timer);
  }

  /** Clears every timer set (at stop). */
  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
