import { AppError } from '../../errors.ts';
import type { ENROLLMENT_STATUSES, SEQUENCE_STATUSES } from './events.ts';

export type SequenceStatus = (typeof SEQUENCE_STATUSES)[number];
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

/**
 * The two state machines as tables: each status, the actions allowed in it and where each goes. An
 * action not in a status's row is a 409 `invalid_transition` that lists the row's actions.
 */
export const SEQUENCE_MACHINE: Readonly<
  Record<SequenceStatus, Partial<Record<SequenceAction, SequenceStatus>>>
> = {
  DRAFT: { activate: 'ACTIVE', archive: 'ARCHIVED', edit: 'DRAFT' },
  ACTIVE: { pause: 'PAUSED', archive: 'ARCHIVED' },
  PAUSED: { activate: 'ACTIVE', archive: 'ARCHIVED', edit: 'PAUSED' },
  ARCHIVED: {},
};
export type SequenceAction = 'activate' | 'pause' | 'archive' | 'edit';

export const ENROLLMENT_MACHINE: Readonly<
  Record<EnrollmentStatus, Partial<Record<EnrollmentAction, EnrollmentStatus>>>
> = {
  active: { pause: 'paused', finish: 'finished' },
  paused: { resume: 'active', finish: 'finished' },
  finished: {},
  failed: {},
};
export type EnrollmentAction = 'pause' | 'resume' | 'finish';

/** The status an action leads to, or a 409 naming the actions the current status allows. */
export function transition<S extends string, A extends string>(
  machine: Readonly<Record<S, Partial<Record<A, S>>>>,
  what: string,
  status: S,
  action: A,
): S {
  const next = machine[status][action];
  if (next !== undefined) return next;
  const allowedActions = Object.keys(machine[status]);
  throw new AppError('invalid_transition', `Cannot ${action} a ${what} that is ${status}.`, {
    currentStatus: status,
    allowedActions,
  });
}

export const allowedActions = <S extends string>(machine: Record<S, object>, status: S): string[] =>
  Object.keys(machine[status]);
