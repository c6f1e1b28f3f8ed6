import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type EmbeddedDatabase, freePort, startEmbeddedPostgres } from '../../../src/db/embedded.ts';
import { bearer, bootstrapAccount } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.ts';

const test = suite('the service survives its database going away');

/** Liveness bound of one request: generous (a busy machine), and a request past it counts as hung. */
const REQUEST_BOUND_MS = 30_000;

interface Answer {
  status: number | 'hung' | 'no answer';
  // biome-ignore lint/suspicious/noExplicitAny: answers are arbitrary JSON that the test picks apart
  body: any;
  retryAfter: string | null;
}

async function send(url: string, key: string, method: string, path: string, body?: unknown): Promise<Answer> {
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

/** What the load did: every answer by phase, the tables whose create was acknowledged, and names. */
class Load {
  phase = 'up';
  readonly answers: { phase: string; what: string; answer: Answer; ms: number }[] = [];
  readonly created: string[] = [];
  /** Per table: the last acknowledged name, and every name tried after it (their outcome unknown). */
  readonly names = new Map<string, { acked: string; since: string[] }>();
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
          this.names.set(answer.body.id, { acked: name, since: [] });
        }
      } else {
        const id = mine[this.n % mine.length]!;
        const entry = this.names.get(id)!;
        entry.since.push(name);
        const answer = await this.record('rename', () =>
          send(this.url, this.key, 'PATCH', `/api/tables/${id}`, { name }),
        );
        if (answer.status === 200) this.names.set(id, { acked: name, since: [] });
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
}

const readiness = async (url: string) => {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(REQUEST_BOUND_MS) });
  return { status: res.status, body: await res.json() };
};

test('PostgreSQL stopped and started under load: 503s meanwhile, then everything back by itself', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'stk-outage-'));
  // Its own server, data directory and port: stopping it leaves the suite's database alone.
  const port = await freePort();
  let database: EmbeddedDatabase | undefined = await startEmbeddedPostgres(join(dataDir, 'db'), { port });
  let service: ServiceProcess | undefined;
  try {
    service = await startServiceProcess({
      DATABASE_URL: database.url,
      DATA_DIR: join(dataDir, 'service'),
      EVENTSTORE_URL: '',
      LOG_LEVEL: 'warn',
      DB_CONNECT_TIMEOUT_MS: '1000',
      DB_STATEMENT_TIMEOUT_MS: '5000',
    });
    const { url } = service;
    const { apiKey } = await bootstrapAccount(url);
    const load = new Load(url, apiKey);
    load.start(6);
    await eventually('a few writes to land', () => load.created.length >= 10);
    assert.equal([...load.statuses('up').keys()].sort(), ['200', '201'], 'before the outage');

    load.phase = 'down';
    await database.stop();
    database = undefined;
    // Every write answers a 503 problem now, within its bound; none a 500, none hangs.
    await eventually('writes to answer 503', () =>
      load.answers.some((a) => a.phase === 'down' && a.answer.status === 503),
    );
    const down = await eventually('/readyz to say why it is not ready', async () => {
      const r = await readiness(url);
      return r.status === 503 && /retrying/.test(r.body.checks.projections.detail ?? '') ? r : undefined;
    });
    assert.is(down.body.status, 'not_ready');
    assert.is(down.body.checks.database.ok, false);
    const during = load.answers.length;
    await eventually('more answers during the outage', () => load.answers.length >= during + 20);
    const health = await fetch(`${url}/healthz`);
    assert.is(health.status, 200, 'liveness during the outage');
    assert.is(service.child.exitCode, null, service.output());

    load.phase = 'back';
    database = await startEmbeddedPostgres(join(dataDir, 'db'), { port });
    await eventually(
      'writes to succeed again',
      () => load.answers.some((a) => a.phase === 'back' && a.answer.status === 201),
      60_000,
    );
    await eventually('/readyz to be ready again', async () => (await readiness(url)).status === 200, 60_000);
    load.phase = 'after';
    const after = load.answers.length;
    await eventually('writes after recovery', () => load.answers.length >= after + 30, 60_000);
    await load.stop();

    for (const phase of ['up', 'down', 'back', 'after'])
      console.log(
        `  ${phase}: ${JSON.stringify(Object.fromEntries(load.statuses(phase)))}, slowest ${Math.round(
          Math.max(...load.answers.filter((a) => a.phase === phase).map((a) => a.ms)),
        )} ms`,
      );
    for (const phase of ['down', 'back']) {
      const outage = load.answers.filter((a) => a.phase === phase);
      for (const { what, answer } of outage) {
        assert.ok(
          [200, 201, 503].includes(answer.status as number),
          `${phase}: ${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
        );
        if (answer.status === 503) {
          assert.is(answer.body.code, 'unavailable');
          assert.ok(answer.retryAfter, 'Retry-After');
        }
      }
    }
    assert.ok((load.statuses('down').get('503') ?? 0) > 0, 'no 503 during the outage');
    assert.equal([...load.statuses('after').keys()].sort(), ['200', '201'], 'after recovery');

    // The read models follow again: a rename shows at once on the next read (read-your-writes).
    const id = load.created[0]!;
    const renamed = await send(url, apiKey, 'PATCH', `/api/tables/${id}`, { name: 'after the outage' });
    assert.is(renamed.status, 200);
    assert.is((await send(url, apiKey, 'GET', `/api/tables/${id}`)).body.name, 'after the outage');
    load.names.set(id, { acked: 'after the outage', since: [] });

    // Nothing acknowledged is lost: every acknowledged create is there, every table carries its last
    // acknowledged name or one tried after it (a write cut off by the outage may or may not have landed).
    for (const [table, { acked, since }] of load.names) {
      const res = await send(url, apiKey, 'GET', `/api/tables/${table}`);
      assert.is(res.status, 200, `table ${table} acknowledged but missing`);
      assert.ok(
        [acked, ...since].includes(res.body.name),
        `table ${table}: ${res.body.name}, acked ${acked}`,
      );
    }
    assert.is(service.child.exitCode, null);
    assert.is(await service.stop('SIGTERM'), 0, service.output());
    service = undefined;
  } catch (error) {
    // The service's side of a failure: its last log lines.
    console.error(service?.output().slice(-8000));
    throw error;
  } finally {
    if (service) await service.stop('SIGKILL');
    await database?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test.run();
