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
 * Knobs: BENCH_TASKS, BENCH_ENROLLMENTS, BENCH_SECONDS (per round), BENCH_ROUNDS; BENCH_SMOKE=1 runs
 * it on tiny sizes (bench/lib/smoke.ts).
 */
import { loadavg } from 'node:os';
import { leadsFeature } from '../app/features/leads.ts';
import { sequencesFeature } from '../app/features/sequences.ts';
import { tasksFeature } from '../app/features/tasks.ts';
import { TASKS } from '../projections/tasks/tasks.ts';
import { taskQuery } from '../queries/tasks/tasks.ts';
import { createAuthenticator } from '../services/accounts/authenticator.ts';
import type { StreamAppend } from '../src/event-store/port.ts';
import { randomId } from '../src/ids.ts';
import { accounts, bearer, bootstrapAccount, call } from '../test/support/accounts.ts';
import { type BareTasks, serveBareTasks } from './lib/bare-tasks.ts';
import { openBenchApp } from './lib/bench-app.ts';
import { startBenchServer } from './lib/postgres.ts';
import { writeBenchmarkSection } from './lib/report.ts';
import { random } from './lib/rows-workload.ts';
import { sized } from './lib/smoke.ts';
import { explainPlan, measureQuerySides } from './lib/tasks-query.ts';
import { tasksMarkdown, tasksText } from './lib/tasks-report.ts';
import {
  appendInChunks,
  enrollmentAppend,
  FILTER,
  HAND_WRITTEN,
  handWrittenValues,
  LIMIT,
  SORT,
  sequenceAppend,
  taskAppend,
} from './lib/tasks-workload.ts';
import { numberFromEnv, timed } from './lib/timing.ts';

const SECTION = 'Tasks';
const settings = {
  // A smoke run: 1,500 tasks hold the first two that the filter selects (the query must find some).
  tasks: numberFromEnv('BENCH_TASKS', 100_000, 1500),
  enrollments: numberFromEnv('BENCH_ENROLLMENTS', 10_000, 20),
  seconds: numberFromEnv('BENCH_SECONDS', 5, 0.3),
  rounds: numberFromEnv('BENCH_ROUNDS', 3, 1),
  /** Callers in a closed loop: one (latency), and eight (throughput on a small machine). */
  callers: [1, 8],
  warmupSeconds: sized(2, 0.1),
  chunk: 1000,
};
const log = (line: string) => process.stderr.write(`${line}\n`);
const loadAtStart = loadavg()[0]!.toFixed(1);

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
  let bare: BareTasks | undefined;
  try {
    const { apiKey, organizationId } = await bootstrapAccount(url);
    /** Appends a thousand streams at a time. */
    const appendAll = (appends: StreamAppend[]) => appendInChunks(store, appends, settings.chunk);
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
    bare = await serveBareTasks(pool, organizationId);
    const bareUrl = bare.url;
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
    const selected = await pool.query(
      HAND_WRITTEN.replace(`LIMIT ${LIMIT + 1}`, ''),
      handWrittenValues(organizationId),
    );
    log(`the filter selects ${selected.rows.length} of ${settings.tasks} tasks; a page shows ${matched}`);
    const sides = [
      {
        name: 'POST /api/tasks/query (API)',
        call: () => call(url, 'POST', '/api/tasks/query', { headers: bearer(apiKey), body }),
      },
      { name: 'bare Fastify, hand-written SQL', call: () => call(bareUrl, 'POST', '/bare/query', { body }) },
    ];
    const query = await measureQuerySides({
      pool,
      sides,
      callers: settings.callers,
      rounds: settings.rounds,
      seconds: settings.seconds,
      warmupSeconds: settings.warmupSeconds,
      log,
    });
    const apiStatement = taskQuery(organizationId, body as Parameters<typeof taskQuery>[1]);
    const apiPlan = await explainPlan(pool, apiStatement.text, apiStatement.values);
    const handPlan = await explainPlan(pool, HAND_WRITTEN, handWrittenValues(organizationId));
    log(`API plan:\n${apiPlan}\nhand-written plan:\n${handPlan}`);

    // 2. The first-step tasks of many enrollments at once, of one ACTIVE sequence.
    const sequenceId = randomId('seq');
    const at = new Date().toISOString();
    await appendAll([sequenceAppend(sequenceId, organizationId, at)]);
    await projections.waitFor(await store.head(), undefined, 60_000);
    const enrollments = Array.from({ length: settings.enrollments }, () =>
      enrollmentAppend(sequenceId, organizationId, at),
    );
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

    const results = {
      settings,
      seededSeconds: seeded.seconds,
      query,
      selected: selected.rows.length,
      apiPlan,
      handPlan,
      enrolledSeconds: enrolled.seconds,
      generatedSeconds: generated.seconds,
    };
    console.log(tasksText(results));
    await writeBenchmarkSection(SECTION, tasksMarkdown(results, server, loadAtStart));
  } finally {
    await bare?.close();
    await bench.close();
  }
} finally {
  await server.stop();
}
