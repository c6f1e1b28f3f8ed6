import type { Command } from 'commander';
import { jsonArgument } from '../arguments.ts';
import { UsageError } from '../errors.ts';
import { clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';
import { fetchPages, type PageOptions, pageOptions, withMore } from '../pages.ts';

interface Sequence {
  id: string;
  name: string;
  sourceTableId: string | null;
  steps: { type: string; waitDays: number; subject?: string }[];
  status: string;
  allowedActions: string[];
  clonedFrom: string | null;
  createdAt: string;
  updatedAt: string;
  stats?: Record<string, number>;
}

interface Enrollment {
  id: string;
  leadId: string;
  assigneeUserId: string | null;
  status: string;
  finishedReason: string | null;
  enrolledAt: string;
}

interface Outcome {
  leadId: string;
  outcome: string;
  reason?: string;
  enrollmentId?: string;
}

const sequencePath = (id: string) => `/api/sequences/${encodeURIComponent(id)}`;

const showSequence = (s: Sequence) =>
  formatRecord([
    ['ID', s.id],
    ['Name', s.name],
    ['Status', s.status],
    ['Allowed', s.allowedActions.join(', ')],
    ['Source table', s.sourceTableId],
    ['Steps', s.steps.map((step, i) => `${i + 1}. ${step.type} after ${step.waitDays}d`).join('; ')],
    [
      'Stats',
      s.stats
        ? Object.entries(s.stats)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')
        : undefined,
    ],
    ['Cloned from', s.clonedFrom],
    ['Created', s.createdAt],
    ['Updated', s.updatedAt],
  ]);

function stepsArgument(value: string): unknown[] {
  const parsed = jsonArgument(value);
  if (!Array.isArray(parsed))
    throw new UsageError('--steps takes a JSON array of {type, waitDays, subject?, body?}');
  return parsed;
}

/** `--lead id`, repeated. */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `stk sequences list | get | create | activate | pause | archive | clone | enroll | enrollments`. */
export function registerSequenceCommands(program: Command): void {
  const sequences = program.command('sequences').description("the organization's outreach sequences");
  const show = (command: Command, s: Sequence) => emit(command, s, () => showSequence(s));

  pageOptions(
    sequences
      .command('list')
      .description('list sequences, oldest first')
      .option('--status <status>', 'DRAFT, ACTIVE, PAUSED or ARCHIVED'),
    'sequences',
  ).action(async (options: PageOptions & { status?: string }, command: Command) => {
    const page = await fetchPages<Sequence>(await clientFor(command), '/api/sequences', options, {
      status: options.status,
    });
    emit(command, page, () =>
      withMore(
        formatTable(page.data, [
          { header: 'ID', value: (s) => s.id },
          { header: 'STATUS', value: (s) => s.status },
          { header: 'STEPS', value: (s) => s.steps.length },
          { header: 'NAME', value: (s) => s.name },
        ]),
        page.nextCursor,
      ),
    );
  });

  sequences
    .command('get')
    .description('show a sequence and its enrollment stats')
    .argument('<sequenceId>')
    .action(async (id: string, _o: object, command: Command) =>
      show(command, await (await clientFor(command)).get<Sequence>(sequencePath(id))),
    );

  sequences
    .command('create')
    .description('create a sequence (DRAFT)')
    .requiredOption('--name <name>', 'its name')
    .requiredOption(
      '--steps <json>',
      'JSON array (inline or @file.json) of {type, waitDays, subject?, body?}',
      stepsArgument,
    )
    .option('--source-table <tableId>', 'the table whose add_to_sequence columns may target it')
    .action(async (options: { name: string; steps: unknown[]; sourceTable?: string }, command: Command) => {
      const body = {
        name: options.name,
        steps: options.steps,
        ...(options.sourceTable ? { sourceTableId: options.sourceTable } : {}),
      };
      show(command, await (await clientFor(command)).post<Sequence>('/api/sequences', body));
    });

  for (const [action, description] of [
    ['activate', 'activate a DRAFT or PAUSED sequence'],
    ['pause', 'pause an ACTIVE sequence'],
    ['archive', 'archive a sequence (for good)'],
    ['clone', 'make a DRAFT copy of the steps'],
  ] as const) {
    sequences
      .command(action)
      .description(description)
      .argument('<sequenceId>')
      .action(async (id: string, _o: object, command: Command) =>
        show(command, await (await clientFor(command)).post<Sequence>(`${sequencePath(id)}/${action}`)),
      );
  }

  sequences
    .command('enroll')
    .description('enroll leads; prints one outcome per lead')
    .argument('<sequenceId>')
    .requiredOption('--lead <leadId>', 'a lead to enroll (repeat, up to 500)', collect)
    .option('--assignee <userId>', 'the member the enrollments are assigned to')
    .option('--email-sender <senderAccountId>', 'the email sender account')
    .option('--linkedin-sender <senderAccountId>', 'the LinkedIn sender account')
    .option('--skip-active-conflicts', 'skip leads active in another sequence')
    .action(
      async (
        id: string,
        options: {
          lead: string[];
          assignee?: string;
          emailSender?: string;
          linkedinSender?: string;
          skipActiveConflicts?: boolean;
        },
        command: Command,
      ) => {
        const senders = {
          ...(options.emailSender ? { email: options.emailSender } : {}),
          ...(options.linkedinSender ? { linkedin: options.linkedinSender } : {}),
        };
        const body = {
          leadIds: options.lead,
          ...(options.assignee ? { assigneeUserId: options.assignee } : {}),
          ...(Object.keys(senders).length ? { senderAccountIds: senders } : {}),
          ...(options.skipActiveConflicts ? { skipActiveSequenceConflicts: true } : {}),
        };
        const answer = await (await clientFor(command)).post<{ data: Outcome[] }>(
          `${sequencePath(id)}/enrollments`,
          body,
        );
        emit(command, answer, () =>
          formatTable(answer.data, [
            { header: 'LEAD', value: (o) => o.leadId },
            { header: 'OUTCOME', value: (o) => o.outcome },
            { header: 'REASON', value: (o) => o.reason ?? '' },
            { header: 'ENROLLMENT', value: (o) => o.enrollmentId ?? '' },
          ]),
        );
      },
    );

  pageOptions(
    sequences.command('enrollments').description("list a sequence's enrollments").argument('<sequenceId>'),
    'enrollments',
  ).action(async (id: string, options: PageOptions, command: Command) => {
    const page = await fetchPages<Enrollment>(
      await clientFor(command),
      `${sequencePath(id)}/enrollments`,
      options,
    );
    emit(command, page, () =>
      withMore(
        formatTable(page.data, [
          { header: 'ID', value: (e) => e.id },
          { header: 'LEAD', value: (e) => e.leadId },
          {
            header: 'STATUS',
            value: (e) => (e.finishedReason ? `${e.status} (${e.finishedReason})` : e.status),
          },
          { header: 'ASSIGNEE', value: (e) => e.assigneeUserId ?? '' },
          { header: 'ENROLLED', value: (e) => e.enrolledAt },
        ]),
        page.nextCursor,
      ),
    );
  });
}
