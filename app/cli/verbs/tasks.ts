import type { Command } from 'commander';
import { jsonArgument, textArgument } from '../arguments.ts';
import { clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';
import { type PageOptions, pageOptions, withMore } from '../pages.ts';

interface Task {
  id: string;
  type: string;
  status: string;
  title: string;
  notes: string | null;
  dueAt: string;
  assigneeUserId: string | null;
  leadId: string | null;
  sequenceId: string | null;
  enrollmentId: string | null;
  stepIndex: number | null;
  completedAt: string | null;
  email: {
    to: string;
    from: string;
    subject: string;
    body: string;
    status: string;
    sendAt: string | null;
    error: string | null;
  } | null;
}

const showTask = (t: Task) =>
  formatRecord([
    ['ID', t.id],
    ['Type', t.type],
    ['Status', t.status],
    ['Title', t.title],
    ['Notes', t.notes],
    ['Due', t.dueAt],
    ['Assignee', t.assigneeUserId],
    ['Lead', t.leadId],
    ['Sequence', t.sequenceId && `${t.sequenceId} step ${(t.stepIndex ?? 0) + 1}`],
    ['Completed', t.completedAt],
    ['Email', t.email && `${t.email.status}: ${t.email.from} -> ${t.email.to}`],
    ['Subject', t.email?.subject ?? null],
    ['Body', t.email?.body ?? null],
    ['Send at', t.email?.sendAt ?? null],
    ['Note', t.email?.error ?? null],
  ]);

const path = (id: string) => `/api/tasks/${encodeURIComponent(id)}`;

interface ListOptions extends PageOptions {
  status?: string;
  type?: string;
  assignee?: string;
  filter?: string;
  sort?: string;
}

/** The list's filter: --filter as given, else the rules the shorthand options name (AND). */
function filterOf(options: ListOptions): unknown {
  if (options.filter) return jsonArgument(options.filter);
  const rules = (
    [
      ['status', options.status],
      ['type', options.type],
      ['assigneeUserId', options.assignee],
    ] as const
  )
    .filter(([, value]) => value !== undefined)
    .map(([columnKey, value]) => ({ columnKey, operator: 'equals', value }));
  return rules.length > 0 ? { mode: 'AND', filters: rules } : undefined;
}

/** `stk tasks list | get | create | complete | skip | bulk | draft-email | schedule-email`. */
export function registerTaskCommands(program: Command): void {
  const tasks = program.command('tasks').description("the organization's tasks");

  pageOptions(
    tasks
      .command('list')
      .description('list tasks (POST /api/tasks/query), by due time unless --sort says otherwise')
      .option('--status <status>', 'pending, scheduled, completed or skipped')
      .option('--type <type>', 'email, call, linkedin or manual')
      .option('--assignee <userId>', 'tasks of this user')
      .option(
        '--filter <json>',
        'a FilterObject over task fields (inline or @file.json), instead of the above',
      )
      .option('--sort <fields>', 'task fields, comma-separated, - for descending', 'dueAt'),
    'tasks',
    500,
  ).action(async (options: ListOptions, command: Command) => {
    const client = await clientFor(command);
    const filter = filterOf(options);
    const data: Task[] = [];
    let cursor = options.cursor;
    let nextCursor: string | null;
    do {
      const page = await client.post<{ data: Task[]; nextCursor: string | null }>('/api/tasks/query', {
        ...(filter ? { filter } : {}),
        sort: options.sort,
        ...(options.limit ? { limit: options.limit } : {}),
        ...(cursor ? { cursor } : {}),
      });
      data.push(...page.data);
      nextCursor = page.nextCursor;
      cursor = nextCursor ?? undefined;
    } while (options.all && nextCursor);
    emit(command, { data, nextCursor }, () =>
      withMore(
        formatTable(data, [
          { header: 'ID', value: (t) => t.id },
          { header: 'TYPE', value: (t) => t.type },
          { header: 'STATUS', value: (t) => t.status },
          { header: 'DUE', value: (t) => t.dueAt },
          { header: 'ASSIGNEE', value: (t) => t.assigneeUserId ?? '' },
          { header: 'TITLE', value: (t) => t.title },
        ]),
        nextCursor,
      ),
    );
  });

  tasks
    .command('get')
    .description('show a task')
    .argument('<taskId>')
    .action(async (id: string, _options: object, command: Command) => {
      const task = await (await clientFor(command)).get<Task>(path(id));
      emit(command, task, () => showTask(task));
    });

  tasks
    .command('create')
    .description('create a task by hand')
    .argument('<title>')
    .option('--type <type>', 'email, call, linkedin or manual', 'manual')
    .option('--notes <text>', 'notes (inline or @file)', textArgument)
    .option('--due <time>', 'ISO 8601 due time (default: now)')
    .option('--assignee <userId>', "default: the key's user")
    .option('--lead <leadId>', 'the lead it is about')
    .action(async (title: string, o: Record<string, string | undefined>, command: Command) => {
      const task = await (await clientFor(command)).post<Task>('/api/tasks', {
        title,
        type: o.type,
        ...(o.notes !== undefined ? { notes: o.notes } : {}),
        ...(o.due ? { dueAt: o.due } : {}),
        ...(o.assignee ? { assigneeUserId: o.assignee } : {}),
        ...(o.lead ? { leadId: o.lead } : {}),
      });
      emit(command, task, () => showTask(task));
    });

  for (const [verb, status] of [
    ['complete', 'completed'],
    ['skip', 'skipped'],
  ] as const) {
    tasks
      .command(verb)
      .description(`mark a task ${status}`)
      .argument('<taskId>')
      .action(async (id: string, _options: object, command: Command) => {
        const task = await (await clientFor(command)).patch<Task>(path(id), { status });
        emit(command, task, () => showTask(task));
      });
  }

  tasks
    .command('bulk')
    .description('complete, skip, reassign, reschedule or delete many tasks: one result per task')
    .argument('<action>', 'complete, skip, reassign, reschedule or delete')
    .argument('<taskIds...>')
    .option('--assignee <userId>', 'for reassign')
    .option('--due <time>', 'for reschedule')
    .action(
      async (action: string, taskIds: string[], o: { assignee?: string; due?: string }, command: Command) => {
        const result = await (await clientFor(command)).post<{
          data: { taskId: string; result: string; code?: string; detail?: string }[];
        }>('/api/tasks/bulk', {
          action,
          taskIds,
          ...(o.assignee ? { assigneeUserId: o.assignee } : {}),
          ...(o.due ? { dueAt: o.due } : {}),
        });
        emit(command, result, () =>
          formatTable(result.data, [
            { header: 'TASK', value: (r) => r.taskId },
            { header: 'RESULT', value: (r) => r.result },
            { header: 'CODE', value: (r) => r.code ?? '' },
            { header: 'DETAIL', value: (r) => r.detail ?? '' },
          ]),
        );
      },
    );

  tasks
    .command('draft-email')
    .description("draft an email task's subject and body from its step, for its lead")
    .argument('<taskId>')
    .action(async (id: string, _options: object, command: Command) => {
      const task = await (await clientFor(command)).post<Task>(`${path(id)}/draft-email`);
      emit(command, task, () => showTask(task));
    });

  tasks
    .command('schedule-email')
    .description('schedule a drafted email to go out at a time')
    .argument('<taskId>')
    .requiredOption('--at <time>', 'ISO 8601 send time: now to 90 days ahead')
    .action(async (id: string, o: { at: string }, command: Command) => {
      const task = await (await clientFor(command)).post<Task>(`${path(id)}/schedule-email`, {
        sendAt: o.at,
      });
      emit(command, task, () => showTask(task));
    });
}
