import { type ServiceProcess, startServiceProcess } from './service-process.ts';

/**
 * The shared harness of the fault suites (test/e2e/reliability/): real service processes that a test
 * kills and starts again, and a ledger of what the service acknowledged, to compare with what it holds
 * after the fault.
 */

/** Service processes on one environment: each started one is SIGKILLed by `close`, whatever happened. */
export class Services {
  readonly all: ServiceProcess[] = [];

  constructor(private readonly env: Record<string, string>) {}

  async start(extra: Record<string, string> = {}): Promise<ServiceProcess> {
    const service = await startServiceProcess({ LOG_LEVEL: 'warn', ...this.env, ...extra });
    this.all.push(service);
    return service;
  }

  /** The newest process: the one a client talks to after a restart. */
  get current(): ServiceProcess {
    const last = this.all[this.all.length - 1];
    if (!last) throw new Error('no service started');
    return last;
  }

  /** SIGKILL: no shutdown path, no error handler, open transactions cut. Resolves once it is gone. */
  async kill(service = this.current): Promise<void> {
    const code = await service.stop('SIGKILL');
    if (code !== null) throw new Error(`the service exited (${code}) before the kill:\n${service.output()}`);
  }

  async close(): Promise<void> {
    for (const service of this.all) await service.stop('SIGKILL');
  }
}

/**
 * Per entity, the last value whose write was acknowledged (2xx) and every value tried after it: a write
 * cut off by a fault (no answer, or a 503 after the commit's fate became unknown) may or may not have
 * landed, so afterwards the entity holds the acknowledged value or one of those.
 */
export class Acknowledged {
  private readonly values = new Map<string, { acked: string; since: string[] }>();

  /** A value known to be stored: a create's, or a write's that answered 2xx. */
  acked(id: string, value: string): void {
    this.values.set(id, { acked: value, since: [] });
  }

  tried(id: string, value: string): void {
    this.values.get(id)?.since.push(value);
  }

  has(id: string): boolean {
    return this.values.has(id);
  }

  /** What the entity may hold now; undefined for one never acknowledged. */
  possible(id: string): string[] | undefined {
    const entry = this.values.get(id);
    return entry && [entry.acked, ...entry.since];
  }

  ids(): string[] {
    return [...this.values.keys()];
  }
}

/**
 * Sends until the service answers other than with a lost connection or a 5xx, as a client that keeps
 * its Idempotency-Key does across a restart; `send` is called again each time (the URL may change).
 */
export async function untilAnswered<T extends { status: number }>(
  send: () => Promise<T>,
  timeoutMs = 180_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const answer = await send();
      if (answer.status < 500 || Date.now() > deadline) return answer;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
