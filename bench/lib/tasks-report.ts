import type { BenchServer } from './postgres.ts';
import { markdownTable, measuredOn, textTable, verdict } from './report.ts';
import type { QueryResult } from './tasks-query.ts';
import { LIMIT, SORT } from './tasks-workload.ts';

/** What bench/tasks.ts measured, and the knobs its prose names. */
export interface TasksResults {
  settings: {
    tasks: number;
    enrollments: number;
    seconds: number;
    rounds: number;
    callers: number[];
    chunk: number;
  };
  /** Seconds until the read model had every seeded task. */
  seededSeconds: number;
  query: QueryResult[];
  /** Tasks the query's filter selects, and its two plans. */
  selected: number;
  apiPlan: string;
  handPlan: string;
  /** Seconds to append the enrollments, then until their tasks were readable. */
  enrolledSeconds: number;
  generatedSeconds: number;
}

type Table = [headers: string[], rows: string[][]];

const taskRate = (r: TasksResults) => r.settings.enrollments / r.generatedSeconds;

function queryVerdict(r: TasksResults): string {
  return r.settings.callers
    .map((callers) => {
      const [api, bare] = r.query.filter((q) => q.callers === callers);
      return `${callers} caller${callers > 1 ? 's' : ''} ${verdict(api!.rps / bare!.rps, 0.8)}`;
    })
    .join('; ');
}

function queryTable(r: TasksResults): Table {
  return [
    ['query', 'callers', 'req/s (median)', 'p50 ms', 'p99 ms', 'Node CPU ms/req', 'PostgreSQL CPU ms/req'],
    r.query.map((s) => [
      s.name,
      String(s.callers),
      s.rps.toFixed(1),
      s.p50.toFixed(1),
      s.p99.toFixed(1),
      s.node.toFixed(2),
      s.pg.toFixed(2),
    ]),
  ];
}

function dueTasksTable(r: TasksResults): Table {
  return [
    ['enrollments', 'append s', 'until every task is readable, s', 'tasks/s'],
    [
      [
        r.settings.enrollments.toLocaleString('en-US'),
        r.enrolledSeconds.toFixed(1),
        r.generatedSeconds.toFixed(1),
        String(Math.round(taskRate(r))),
      ],
    ],
  ];
}

/** What the terminal shows. */
export function tasksText(r: TasksResults): string {
  return [textTable(...queryTable(r)), `API / bare: ${queryVerdict(r)}`, textTable(...dueTasksTable(r))].join(
    '\n\n',
  );
}

/** The body of the `## Tasks` section of docs/benchmarks.md. */
export function tasksMarkdown(r: TasksResults, server: BenchServer, loadAtStart: string): string {
  const { settings } = r;
  return [
    measuredOn(server, loadAtStart),
    '',
    `**Seeding.** ${settings.tasks.toLocaleString('en-US')} tasks of one organization (4 types, 20 assignees, due ` +
      'over 120 days, about half completed or skipped) are appended as events straight to the event store, ' +
      `${settings.chunk} task streams a call (appendToStreams), and the service's own projections build the ` +
      `tasks read model from them: ${r.seededSeconds.toFixed(0)} s until the read model had them all. No HTTP: ` +
      '100,000 POSTs would measure the create route, not the query.',
    '',
    `**Query.** POST /api/tasks/query with a 5-rule filter (status, type and assignee equal, dueAt before, ` +
      `title contains; AND), sort \`${SORT}\`, ${LIMIT} a page (it selects ${r.selected} tasks), ` +
      `${settings.callers.join(' and ')} callers in a closed loop, ${settings.rounds} alternating rounds of ` +
      `${settings.seconds} s each; medians. The bare route is Fastify running the same query written by hand ` +
      '(exact equality, no missing-value guards, the byte order the indexes use) on the same pool and read ' +
      'model; the answers are checked equal first.',
    '',
    markdownTable(...queryTable(r)),
    '',
    `API / bare: **${queryVerdict(r)}**.`,
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
    r.apiPlan,
    '```',
    '',
    "The hand-written statement's plan:",
    '',
    '```',
    r.handPlan,
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
    markdownTable(...dueTasksTable(r)),
  ].join('\n');
}
