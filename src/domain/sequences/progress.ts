import type { LeadEnrollmentEvent } from './events.ts';
import { leadEnrollmentsStream } from './streams.ts';

export interface StepDone {
  sequenceId: string;
  enrollmentId: string;
  stepIndex: number;
  outcome: 'completed' | 'skipped';
  taskId: string;
  /** When the task was done (the step's time, from which the next step's waitDays count). */
  doneAt: string;
  /** Steps the sequence has now: the last one done finishes the enrollment. */
  stepCount: number;
}

/**
 * Records a step's task as done and, after the last step, finishes the enrollment (reason
 * `completed`). Only the step that is next counts: a repeat (a worker's retry) or a step already
 * passed decides nothing, and neither does an enrollment that has ended.
 */
export const recordStepDone = leadEnrollmentsStream.decider(
  (command: StepDone, state): LeadEnrollmentEvent[] => {
    const enrollment = state.get(command.sequenceId);
    if (!enrollment || enrollment.enrollmentId !== command.enrollmentId) return [];
    if (enrollment.status === 'finished' || enrollment.status === 'failed') return [];
    if (enrollment.stepsDone !== command.stepIndex) return [];
    const { enrollmentId, stepIndex, outcome, taskId, doneAt: at } = command;
    const events: LeadEnrollmentEvent[] = [
      { type: 'EnrollmentStepDone', data: { enrollmentId, stepIndex, outcome, taskId, at } },
    ];
    if (stepIndex + 1 >= command.stepCount)
      events.push({
        type: 'EnrollmentStatusChanged',
        data: { enrollmentId, from: enrollment.status, to: 'finished', finishedReason: 'completed', at },
      });
    return events;
  },
);
