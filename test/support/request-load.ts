import { bearer } from './accounts.ts';
import { Acknowledged } from './process-faults.ts';

/**
 * A steady load of table creates and renames against a service, every answer recorded by phase, and
 * what was acknowledged kept (test/e2e/reliability/database-faults.test.ts): after a fault, a test
 * compares what the service holds with what it acknowledged.
 */

/** Liveness bound of one request: generous (a busy machine), and a request past it counts as hung. */
export const REQUEST_BOUND_MS = 30_000;

export interface Answer {
  status: number | 'hung' | 'no answer';
  // biome-ignore lint/suspicious/noExplicitAny: answers are arbitrary JSON that the test picks apart
  body: any;
  retryAfter: string | null;
}

export async function send(
  url: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  try {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: text ? JSON.parse(text) : null,
      retryAfter: res.headers.get('retry-after'),
    };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return { status: 'hung', body: null, retryAfter: null };
    // The connection closed without an answer: the process died, or dropped the request.
    return { status: 'no answer', body: String((error as Error).cause ?? error), retryAfter: null };
  }
}

/** What the load did: every answer by phase, the tables whose create was acknowledged, and their names. */
export class Load {
  phase = 'up';
  readonly answers: { phase: string; what: string; answer: Answer; ms: number }[] = [];
  readonly created: string[] = [];
  readonly names = new Acknowledged();
  private running = true;
  private done?: Promise<void>;
  private n = 0;

  constructor(
    private readonly url: string,
    private readonly key: string,
  ) {}

  start(workers: number): void {
    this.done = Promise.all(Array.from({ length: workers }, (_, w) => this.worker(w))).then(() => {});
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  private async worker(w: number): Promise<void> {
    while (this.running) {
      const name = `t-${w}-${this.n++}`;
      const mine = this.created.filter((_, i) => i % 4 === w % 4);
      if (mine.length === 0 || this.n % 2 === 0) {
        const answer = await this.record('create', () =>
          send(this.url, this.key, 'POST', '/api/tables', { name }),
        );
        if (answer.status === 201) {
          this.created.push(answer.body.id);
          this.names.acked(answer.body.id, name);
        }
      } else {
        const id = mine[this.n % mine.length]!;
        this.names.tried(id, name);
        const answer = await this.record('rename', () =>
          send(this.url, this.key, 'PATCH', `/api/tables/${id}`, { name }),
        );
        if (answer.status === 200) this.names.acked(id, name);
      }
      // Keeps the load steady instead of a spin of instant 503s while the database is down.
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private async record(what: string, fn: () => Promise<Answer>): Promise<Answer> {
    const phase = this.phase;
    const started = performance.now();
    const answer = await fn();
    this.answers.push({ phase, what, answer, ms: performance.now() - started });
    return answer;
  }

  statuses(phase: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const a of this.answers.filter((x) => x.phase === phase)) {
      const key = String(a.answer.status);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  }

  /** One line per phase: its statuses and its slowest answer. */
  report(phases: string[]): void {
    for (const phase of phases) {
      const ms = this.answers.filter((a) => a.phase === phase).map((a) => a.ms);
      console.log(
        `  ${phase}: ${JSON.stringify(Object.fromEntries(this.statuses(phase)))}, slowest ${Math.round(Math.max(...ms))} ms`,
      );
    }
  }
}
