/**
 * Tasks benchmark (`npm run bench:tasks`), each part in one run:
 *
 * 1. POST /api/tasks/query with a 5-rule filter and a sort over BENCH_TASKS (100,000) tasks of one
 *    organization, 50 a page, against a bare Fastify route running the same query hand-written over
 *    the same read model (the answers are checked equal first). Target: >= 0.8x.
 * 2. The due tasks of BENCH_ENROLLMENTS (10,000) enrollments at once: from their LeadEnrolled events
 *    being in the log until every first-step task is in the tasks read model (the sequence-tasks
 *    reactor, its work items, the worker creating each task, the tasks projection). Tasks per second.
 *
 * Seeding goes through the real event store and projections, not HTTP: the tasks' TaskCreated (and
 * for some a TaskStatusChanged) events are appended a thousand streams at a time with
 * appendToStreams, and the service's own projections build the read model from them.
 * Knobs: BENCH_TASKS, BENCH_ENROLLMENTS, BENCH_SECONDS (per round), BENCH_ROUNDS.
 */
import { loadavg } from 'node:os';
import Fastify from 'fastify';
import { TASKS } from '../projections/tasks/tasks.ts';
import { taskQuery } from '../queries/tasks/tasks.ts';
import { createAuthenticator } from '../src/auth/authenticator.ts';
import { leadsFeature } from '../src/domain/leads/feature.ts';
import { sequencesFeature } from '../src/domain/sequences/feature.ts';
import { enrollmentIdOf, leadEnrollmentsStream, sequenceStream } from '../src/domain/sequences/streams.ts';
import { tasksFeature } from '../src/domain/tasks/feature.ts';
import { taskStream } from '../src/domain/tasks/task.ts';
import type { NewEvent, StreamAppend } from '../src/event-store/port.ts';
import { randomId } from '../src/ids.ts';
import { accounts, bearer, bootstrapAccount, call } from '../test/support/accounts.ts';
import { listenOnLoopback, median, openBenchApp } from './lib/bench-app.ts';
import { cpuSnapshot, serverCpu, serverCpuSpent } from './lib/cpu.ts';
import { startBenchServer } from './lib/postgres.ts';
import { describeMachine, markdownTable, textTable, writeBenchmarkSection } from './lib/report.ts';
import { random } from './lib/rows-workload.ts';
import { measureLoad, numberFromEnv, timed } from './lib/timing.ts';

const SECTION = 'Tasks';
const settings = {
  tasks: numberFromEnv('BENCH_TASKS', 100_000),
  enrollments: numberFromEnv('BENCH_ENROLLMENTS', 10_000),
  seconds: numberFromEnv('BENCH_SECONDS', 5),
  rounds: numberFromEnv('BENCH_ROUNDS', 3),
  /** Callers in a closed loop: one (latency), and eight (throughput on a small machine). */
  callers: [1, 8],
  warmupSeconds: 2,
  chunk: 1000,
};
const log = (line: string) => process.stderr.write(`${line}\n`);
const loadAtStart = loadavg()[0]!.toFixed(1);

const TYPES = ['email', 'call', 'linkedin', 'manual'] as const;
const WORDS = ['renewal', 'intro', 'follow-up', 'demo', 'pricing'];
const ASSIGNEES = Array.from({ length: 20 }, (_, i) => `usr_bench${String(i).padStart(2, '0')}`);
const DAY_MS = 86_400_000;
const EPOCH = Date.UTC(2026, 0, 1);

/** The 5-rule filter (AND) and the sort the query asks: a few hundred of 100,000 tasks match. */
const FILTER = {
  mode: 'AND',
  filters: [
    { columnKey: 'status', operator: 'equals', value: 'pending' },
    { columnKey: 'type', operator: 'equals', value: 'call' },
    { columnKey: 'assigneeUserId', operator: 'equals', value: ASSIGNEES[3] },
    { columnKey: 'dueAt', operator: 'before', value: new Date(EPOCH + 60 * DAY_MS).toISOString() },
    { columnKey: 'title', operator: 'contains', value: 'renewal' },
  ],
};
const SORT = 'dueAt';
const LIMIT = 50;

/** The same query as someone who knows the read model and its indexes writes it (exact values, byte order). */
const HAND_WRITTEN = `SELECT r.id, r.cells FROM ${TASKS} r
  WHERE r.organization_id = $1 AND r.cells->>'status' = 'pending' AND r.cells->>'type' = 'call'
    AND r.cells->>'assigneeUserId' = $2 AND (r.cells->>'dueAt') COLLATE "C" < $3
    AND strpos(lower(r.cells->>'title'), 'renewal') > 0
  ORDER BY (r.cells->>'dueAt') COLLATE "C", r.id LIMIT ${LIMIT + 1}`;

/** Task `i`: created (due somewhere in 120 days), and about half of them since completed or skipped. */
function taskAppend(organizationId: string, i: number, next: () => number): StreamAppend {
  const taskId = randomId('task');
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const due = EPOCH + Math.floor(next() * 120 * DAY_MS);
  const at = new Date(EPOCH - DAY_MS).toISOString();
  const events: NewEvent[] = [
    {
      type: 'TaskCreated',
      data: {
        taskId,
        organizationId,
        type: pick(TYPES),
        title: `${pick(WORDS)} with customer ${i}`,
        notes: null,
        dueAt: new Date(due).toISOString(),
        assigneeUserId: pick(ASSIGNEES),
        leadId: null,
        sequenceId: null,
        enrollmentId: null,
        stepIndex: null,
        at,
      },
    },
  ];
  const end = next();
  if (end < 0.5) {
    const to = end < 0.4 ? 'completed' : 'skipped';
    events.push({ type: 'TaskStatusChanged', data: { taskId, from: 'pending', to, at } });
  }
  return { stream: taskStream.name(taskId), events, expectedRevision: 'no_stream' };
}

const server = await startBenchServer();
try {
  const features = [leadsFeature, sequencesFeature, tasksFeature];
  const bench = await openBenchApp(server, 'tasks', {
    projections: [...accounts.projections, ...features.flatMap((f) => f.projections)],
    routes: [...accounts.routes, ...features.flatMap((f) => [...f.commands, ...f.queries])],
    workers: tasksFeature.workers,
    authenticator: createAuthenticator,
  });
  const { pool, store, projections } = bench.deps;
  const { url } = bench;
  const bare = Fastify();
  try {
    const { apiKey, organizationId } = await bootstrapAccount(url);
    /** Appends a thousand streams at a time. */
    const appendAll = async (appends: StreamAppend[]) => {
      for (let i = 0; i < appends.length; i += settings.chunk) {
        const outcomes = await store.appendToStreams(appends.slice(i, i + settings.chunk));
        const failed = outcomes.find((o) => !o.ok);
        if (failed && !failed.ok) throw failed.error;
      }
    };
    const count = async (where: string, values: unknown[]) =>
      (await pool.query(`SELECT count(*)::int AS n FROM ${TASKS} WHERE ${where}`, values)).rows[0]
        .n as number;

    // Seeding: the tasks, through the store and the projections.
    const next = random(18);
    const seeded = await timed(async () => {
      await appendAll(Array.from({ length: settings.tasks }, (_, i) => taskAppend(organizationId, i, next)));
      // Every projection: the reactors read each TaskCreated too, and must not run during the measurements.
      await projections.waitFor(await store.head(), undefined, 600_000);
    });
    const stored = await count('organization_id = $1', [organizationId]);
    if (stored !== settings.tasks)
      throw new Error(`${stored} tasks in the read model, not ${settings.tasks}`);
    log(`seeded ${settings.tasks} tasks in ${seeded.seconds.toFixed(1)} s`);
    await pool.query(`ANALYZE ${TASKS}`);

    // 1. The query, API against the hand-written SQL on the same pool.
    // Sent the same request as the API (so that both sides' callers do the same work), it takes the
    // assignee and the due time from the filter as a hand-written endpoint would, and trusts the rest.
    bare.post('/bare/query', async (request) => {
      const { filter } = request.body as { filter: typeof FILTER };
      const { rows } = await pool.query(HAND_WRITTEN, [
        organizationId,
        filter.filters[2]!.value,
        filter.filters[3]!.value,
      ]);
      return { data: rows.slice(0, LIMIT).map((r) => r.cells) };
    });
    const bareUrl = await listenOnLoopback(bare);
    const body = { filter: FILTER, sort: SORT, limit: LIMIT };
    const ours = await call(url, 'POST', '/api/tasks/query', { headers: bearer(apiKey), body });
    const theirs = await call(bareUrl, 'POST', '/bare/query', { body });
    if (ours.status !== 200)
      throw new Error(`the query answered ${ours.status}: ${JSON.stringify(ours.body)}`);
    const matched = ours.body.data.length as number;
    // The API writes each task's fields in its schema's order, jsonb in its own: compared key by key.
    const canonical = (tasks: Record<string, unknown>[]) =>
      JSON.stringify(
        tasks.map((t) => Object.fromEntries(Object.entries(t).sort(([a], [b]) => a.localeCompare(b)))),
      );
    if (canonical(ours.body.data) !== canonical(theirs.body.data) || matched === 0)
      throw new Error(
        `the bare query does not answer what the API answers: ${matched} against ${theirs.body.data.length} tasks`,
      );
    const selected = await pool.query(HAND_WRITTEN.replace(`LIMIT ${LIMIT + 1}`, ''), [
      organizationId,
      ASSIGNEES[3],
      FILTER.filters[3]!.value,
    ]);
    log(`the filter selects ${selected.rows.length} of ${settings.tasks} tasks; a page shows ${matched}`);
    const sides = [
      {
        name: 'POST /api/tasks/query (API)',
        call: () => call(url, 'POST', '/api/tasks/query', { headers: bearer(apiKey), body }),
      },
      { name: 'bare Fastify, hand-written SQL', call: () => call(bareUrl, 'POST', '/bare/query', { body }) },
    ];
    type Row = {
      callers: number;
      name: string;
      rps: number;
      p50: number;
      p99: number;
      node: number;
      pg: number;
    };
    const query: Row[] = [];
    // CPU per request of this process (the service and the callers: the same callers for both sides)
    // and of the database server's processes: far less sensitive to a busy machine than req/s.
    const cpuNow = async () => ({ node: cpuSnapshot().node, postgres: await serverCpu(pool) });
    for (const callers of settings.callers) {
      const rounds = new Map(sides.map((s) => [s.name, [] as number[][]]));
      for (let round = 0; round < settings.rounds; round++) {
        for (const side of round % 2 ? [...sides].reverse() : sides) {
          const load = {
            concurrency: callers,
            op: async () => {
              const res = await side.call();
              if (res.status !== 200) throw new Error(`${side.name} answered ${res.status}`);
              return 1;
            },
          };
          if (round === 0) await measureLoad({ ...load, seconds: settings.warmupSeconds });
          const before = await cpuNow();
          const m = await measureLoad({ ...load, seconds: settings.seconds });
          const after = await cpuNow();
          const perOp = (seconds: number | undefined) => ((seconds ?? Number.NaN) * 1000) / m.ops;
          const node = perOp(after.node - before.node);
          const pg = perOp(serverCpuSpent(before.postgres, after.postgres));
          rounds.get(side.name)!.push([m.opsPerSec, m.p50Ms, m.p99Ms, node, pg]);
          log(
            `${callers} callers, round ${round + 1}, ${side.name}: ${m.opsPerSec.toFixed(1)}/s, CPU ms/req node ${node.toFixed(2)} postgres ${pg.toFixed(2)}`,
          );
        }
      }
      for (const [name, r] of rounds)
        query.push({
          callers,
          name,
          rps: median(r.map((x) => x[0]!)),
          p50: median(r.map((x) => x[1]!)),
          p99: median(r.map((x) => x[2]!)),
          node: median(r.map((x) => x[3]!)),
          pg: median(r.map((x) => x[4]!)),
        });
    }
    /** The plan PostgreSQL chooses for a statement, its index and row counts. */
    const explain = async (text: string, values: unknown[]) =>
      (await pool.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, BUFFERS OFF) ${text}`, values)).rows
        .map((r) => r['QUERY PLAN'] as string)
        .join('\n');
    const apiStatement = taskQuery(organizationId, body as Parameters<typeof taskQuery>[1]);
    const apiPlan = await explain(apiStatement.text, apiStatement.values);
    const handPlan = await explain(HAND_WRITTEN, [organizationId, ASSIGNEES[3], FILTER.filters[3]!.value]);
    log(`API plan:\n${apiPlan}\nhand-written plan:\n${handPlan}`);

    // 2. The first-step tasks of many enrollments at once, of one ACTIVE sequence.
    const sequenceId = randomId('seq');
    const at = new Date().toISOString();
    await appendAll([
      {
        stream: sequenceStream.name(sequenceId),
        expectedRevision: 'no_stream',
        events: [
          {
            type: 'SequenceCreated',
            data: {
              sequenceId,
              organizationId,
              name: 'Bench',
              sourceTableId: null,
              steps: [{ type: 'call', waitDays: 0 }],
              clonedFrom: null,
              at,
            },
          },
          { type: 'SequenceStatusChanged', data: { sequenceId, from: 'DRAFT', to: 'ACTIVE', at } },
        ],
      },
    ]);
    await projections.waitFor(await store.head(), undefined, 60_000);
    const enrollments = Array.from({ length: settings.enrollments }, (): StreamAppend => {
      const leadId = randomId('led');
      const data = {
        enrollmentId: enrollmentIdOf(leadId, sequenceId),
        organizationId,
        sequenceId,
        leadId,
        assigneeUserId: ASSIGNEES[0]!,
        senderAccountIds: {},
        at,
      };
      return {
        stream: leadEnrollmentsStream.name(leadId),
        expectedRevision: 'no_stream',
        events: [{ type: 'LeadEnrolled', data }],
      };
    });
    const enrolled = await timed(() => appendAll(enrollments));
    const generated = await timed(async () => {
      for (;;) {
        if ((await count(`cells->>'sequenceId' = $1`, [sequenceId])) === settings.enrollments) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    const taskRate = settings.enrollments / generated.seconds;
    log(
      `${settings.enrollments} enrollments appended in ${enrolled.seconds.toFixed(1)} s; their tasks in ${generated.seconds.toFixed(1)} s more: ${Math.round(taskRate)} tasks/s`,
    );

    const verdicts = settings.callers.map((callers) => {
      const [api, bare] = query.filter((q) => q.callers === callers);
      const ratio = api!.rps / bare!.rps;
      return `${callers} caller${callers > 1 ? 's' : ''} ${ratio.toFixed(2)}x (target >= 0.8x: ${ratio >= 0.8 ? 'met' : 'NOT met'})`;
    });
    const verdict = verdicts.join('; ');
    const headers = [
      'query',
      'callers',
      'req/s (median)',
      'p50 ms',
      'p99 ms',
      'Node CPU ms/req',
      'PostgreSQL CPU ms/req',
    ];
    const rows = query.map((s) => [
      s.name,
      String(s.callers),
      s.rps.toFixed(1),
      s.p50.toFixed(1),
      s.p99.toFixed(1),
      s.node.toFixed(2),
      s.pg.toFixed(2),
    ]);
    const genHeaders = ['enrollments', 'append s', 'until every task is readable, s', 'tasks/s'];
    const genRows = [
      [
        settings.enrollments.toLocaleString('en-US'),
        enrolled.seconds.toFixed(1),
        generated.seconds.toFixed(1),
        String(Math.round(taskRate)),
      ],
    ];
    console.log(
      [textTable(headers, rows), `API / bare: ${verdict}`, textTable(genHeaders, genRows)].join('\n\n'),
    );

    await writeBenchmarkSection(
      SECTION,
      [
        `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}, PostgreSQL ${server.version} (${server.origin}); 1-minute load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
        '',
        `**Seeding.** ${settings.tasks.toLocaleString('en-US')} tasks of one organization (4 types, 20 assignees, due ` +
          'over 120 days, about half completed or skipped) are appended as events straight to the event store, ' +
          `${settings.chunk} task streams a call (appendToStreams), and the service's own projections build the ` +
          `tasks read model from them: ${seeded.seconds.toFixed(0)} s until the read model had them all. No HTTP: ` +
          '100,000 POSTs would measure the create route, not the query.',
        '',
        `**Query.** POST /api/tasks/query with a 5-rule filter (status, type and assignee equal, dueAt before, ` +
          `title contains; AND), sort \`${SORT}\`, ${LIMIT} a page (it selects ${selected.rows.length} tasks), ` +
          `${settings.callers.join(' and ')} callers in a closed loop, ${settings.rounds} alternating rounds of ` +
          `${settings.seconds} s each; medians. The bare route is Fastify running the same query written by hand ` +
          '(exact equality, no missing-value guards, the byte order the indexes use) on the same pool and read ' +
          'model; the answers are checked equal first.',
        '',
        markdownTable(headers, rows),
        '',
        `API / bare: **${verdict}**.`,
        '',
        'What was improved: the tasks read model (version 2) has indexes for the filters people use ' +
          '(organization, status and due time; with type; assignee, status and due time, due time in byte ' +
          'order). The rules of an AND filter that an index condition selects exactly (status, type, assignee ' +
          'equal to an ASCII value; dueAt before or after: queries/tasks/indexed-conditions.ts) become those ' +
          'conditions and leave the rows evaluator, whose case-insensitive and NULL-guarded SQL no index ' +
          'serves; the other rules (here the title) stay with it. So both statements use the same index and ' +
          'filter its rows alike (plans below). The statement of a request is remembered per organization and ' +
          'body, and the validation of a body per body, in small LRUs (queries/tasks/memo.ts): a dashboard ' +
          'sends the same query again and again. The bare route is sent the same body and reads the ' +
          'assignee and due time from it. What limits it now: per-request work in Node that the bare route ' +
          'does not do (authenticating the key, the hooks of the service: request ids, access, idempotency, ' +
          "the request's log line; the response encoded by its schema) and a longer statement with more " +
          'parameters (the evaluator passes field names as parameters), which PostgreSQL parses and plans ' +
          'on every request; the CPU columns show each part per request, this process (service and callers, ' +
          'the same callers for both sides) and the PostgreSQL server. On a 2-core machine shared with other ' +
          'work (see the load average) the processor is the bottleneck, so the ratio follows CPU time per ' +
          'request, and it moves from run to run: read the CPU columns and several runs before concluding.',
        '',
        "The API statement's plan:",
        '',
        '```',
        apiPlan,
        '```',
        '',
        "The hand-written statement's plan:",
        '',
        '```',
        handPlan,
        '```',
        '',
        `**Due tasks of ${settings.enrollments.toLocaleString('en-US')} enrollments at once.** One ACTIVE sequence ` +
          `whose first step is due at once; ${settings.enrollments.toLocaleString('en-US')} LeadEnrolled events ` +
          'appended as above, then timed until every first-step task is in the tasks read model: the ' +
          "sequence-tasks reactor enqueues a work item per enrollment in its checkpoint's transaction, the " +
          'worker (8 at a time) reads the enrollment and the sequence and creates the task, and the tasks ' +
          "projection applies it. What limits it: each task is its own command (reading the lead's enrollments " +
          "stream, the sequence's stream and the new task's stream, then one append), and each work item is " +
          'claimed and settled in its own statements, 8 in flight; on a machine this loaded each round trip ' +
          'waits for a processor.',
        '',
        markdownTable(genHeaders, genRows),
      ].join('\n'),
    );
  } finally {
    await bare.close();
    await bench.close();
  }
} finally {
  await server.stop();
}
