import type { LeadEnrollmentEvent, SequenceEvent } from '../../src/domain/sequences/events.ts';
import type { TaskEvent } from '../../src/domain/tasks/events.ts';
import { isDone } from '../../src/domain/tasks/task.ts';
import type { Projection, RecordedOf } from '../../src/projection/types.ts';
import type { WorkItemInput } from '../../src/work/queue.ts';

export const SEQUENCE_TASKS_KIND = 'sequence-tasks';
/** Logical name: which task is which enrollment's step. */
const TASK_STEPS = 'sequence_task_steps';
/** Logical name: the organization of each enrollment and sequence (their later events do not name it). */
const OWNERS = 'sequence_task_owners';

/** What the sequence-tasks worker is asked to do (processes/tasks/sequence-worker.ts). */
export type SequenceTaskWork =
  /** Make the enrollment's next step's task when it is due (held while anything is paused). */
  | { op: 'step'; enrollmentId: string }
  /** A sequence became ACTIVE: look at the next step of each of its active enrollments. */
  | { op: 'sequence'; sequenceId: string }
  /** A step's task was completed or skipped: advance the enrollment. */
  | {
      op: 'advance';
      taskId: string;
      enrollmentId: string;
      stepIndex: number;
      outcome: 'completed' | 'skipped';
      /** When the task was done: the next step's waitDays count from here. */
      doneAt: string;
    };

type Handled =
  | Extract<LeadEnrollmentEvent, { type: 'LeadEnrolled' | 'EnrollmentStatusChanged' | 'EnrollmentStepDone' }>
  | Extract<SequenceEvent, { type: 'SequenceCreated' | 'SequenceStatusChanged' }>
  | Extract<TaskEvent, { type: 'TaskCreated' | 'TaskStatusChanged' }>;

/**
 * Sequence tasks (issue 18, item 2), a reactor: in its checkpoint's transaction it turns an enrollment
 * starting, resuming or finishing a step, and a sequence becoming ACTIVE, into work items that make
 * the next step's task when it comes due; and a sequence task being completed or skipped into an item
 * that advances its enrollment. Item ids come from the event that asked, so a batch applied again
 * enqueues nothing new; the task itself has an id derived from enrollment and step, so it is made once.
 * Its version must never be bumped (read from the start, it would ask again for what is long done).
 */
export const sequenceTasksReactor: Projection<Handled> = {
  name: 'sequence-tasks',
  version: 1,
  handles: [
    'LeadEnrolled',
    'EnrollmentStatusChanged',
    'EnrollmentStepDone',
    'SequenceCreated',
    'SequenceStatusChanged',
    'TaskCreated',
    'TaskStatusChanged',
  ],
  tables: {
    [TASK_STEPS]: (t) => [
      `CREATE TABLE ${t} (task_id text PRIMARY KEY, enrollment_id text NOT NULL, step_index integer NOT NULL)`,
    ],
    [OWNERS]: (t) => [`CREATE TABLE ${t} (id text PRIMARY KEY, organization_id text NOT NULL)`],
  },
  async apply(batch, { tx, table, enqueue }) {
    const t = table(TASK_STEPS);
    const owners = table(OWNERS);
    const items: WorkItemInput[] = [];
    const own = (id: string, organizationId: string) =>
      tx.query(`INSERT INTO ${owners} VALUES ($1, $2) ON CONFLICT DO NOTHING`, [id, organizationId]);
    /** An item about `key` (an enrollment, sequence or task id), of the organization that owns it. */
    const item = async (event: RecordedOf<Handled>, work: SequenceTaskWork, key: string) => {
      const { rows } = await tx.query<{ organization_id: string }>(
        `SELECT organization_id FROM ${owners} WHERE id = $1`,
        [key],
      );
      const organizationId = rows[0]?.organization_id;
      // Events of what this reactor never saw created (before it existed) have nothing to do here.
      if (organizationId === undefined) return;
      items.push({
        id: `${SEQUENCE_TASKS_KIND}:${work.op}:${key}:${event.id}`,
        kind: SEQUENCE_TASKS_KIND,
        organizationId,
        payload: work,
      });
    };
    for (const event of batch) {
      switch (event.type) {
        case 'SequenceCreated':
          await own(event.data.sequenceId, event.data.organizationId);
          break;
        case 'LeadEnrolled': {
          const { enrollmentId, organizationId } = event.data;
          await own(enrollmentId, organizationId);
          await item(event, { op: 'step', enrollmentId }, enrollmentId);
          break;
        }
        case 'EnrollmentStepDone':
          await item(event, { op: 'step', enrollmentId: event.data.enrollmentId }, event.data.enrollmentId);
          break;
        case 'EnrollmentStatusChanged':
          if (event.data.to === 'active')
            await item(event, { op: 'step', enrollmentId: event.data.enrollmentId }, event.data.enrollmentId);
          break;
        case 'SequenceStatusChanged':
          if (event.data.to === 'ACTIVE')
            await item(event, { op: 'sequence', sequenceId: event.data.sequenceId }, event.data.sequenceId);
          break;
        case 'TaskCreated': {
          const { taskId, organizationId, enrollmentId, stepIndex } = event.data;
          if (enrollmentId === null || stepIndex === null) break;
          await own(taskId, organizationId);
          await tx.query(`INSERT INTO ${t} VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
            taskId,
            enrollmentId,
            stepIndex,
          ]);
          break;
        }
        case 'TaskStatusChanged': {
          const { taskId, to } = event.data;
          if (!isDone(to)) break;
          const { rows } = await tx.query<{ enrollment_id: string; step_index: number }>(
            `SELECT enrollment_id, step_index FROM ${t} WHERE task_id = $1`,
            [taskId],
          );
          const step = rows[0];
          if (!step) break;
          const work: SequenceTaskWork = {
            op: 'advance',
            taskId,
            enrollmentId: step.enrollment_id,
            stepIndex: step.step_index,
            outcome: to === 'skipped' ? 'skipped' : 'completed',
            doneAt: event.data.at,
          };
          await item(event, work, taskId);
          break;
        }
      }
    }
    await enqueue(items);
  },
};
