import type { Principal } from '../../auth/scopes.ts';
import { AppError } from '../../errors.ts';
import { idForm, randomId } from '../../ids.ts';
import { ENROLLMENT_MACHINE, SEQUENCE_MACHINE } from './machines.ts';
import type { Enrollment, SenderAccountState, SequenceState } from './streams.ts';

export const newSequenceId = () => randomId('seq');
export const isSequenceId = idForm('seq');
export const newSenderAccountId = () => randomId('snd');
export const isSenderAccountId = idForm('snd');

export const sequencePath = (sequenceId: string) => `/api/sequences/${sequenceId}`;
export const senderAccountPath = (id: string) => `/api/sender-accounts/${id}`;

export const sequenceNotFound = (sequenceId: string) =>
  new AppError('not_found', `No sequence ${sequenceId}.`);
export const senderNotFound = (id: string) => new AppError('not_found', `No sender account ${id}.`);
export const otherOrganization = (what: string) =>
  new AppError('forbidden', `The ${what} belongs to another organization.`);

/** The same checks for a query, on the read-model row it read. */
export function readable<Row extends { organization_id: string }>(
  row: Row | undefined,
  notFound: AppError,
  principal: Principal,
  what: string,
): Row {
  if (!row) throw notFound;
  if (row.organization_id !== principal.organizationId) throw otherOrganization(what);
  return row;
}

/** A 400 naming the field: a reference in a body that names nothing of the organization. */
export const badReference = (path: string, message: string) =>
  new AppError('validation_failed', `Invalid ${path}: ${message}`, { errors: [{ path, message }] });

export const sequenceView = (state: SequenceState) => ({
  id: state.id,
  name: state.name,
  sourceTableId: state.sourceTableId,
  steps: state.steps,
  status: state.status,
  allowedActions: Object.keys(SEQUENCE_MACHINE[state.status]),
  clonedFrom: state.clonedFrom,
  createdAt: state.createdAt,
  updatedAt: state.updatedAt,
});

export const enrollmentView = (e: Omit<Enrollment, 'stepsDone' | 'lastStepAt'>) => ({
  id: e.enrollmentId,
  sequenceId: e.sequenceId,
  leadId: e.leadId,
  assigneeUserId: e.assigneeUserId,
  senderAccountIds: e.senderAccountIds,
  status: e.status,
  finishedReason: e.finishedReason,
  allowedActions: Object.keys(ENROLLMENT_MACHINE[e.status]),
  enrolledAt: e.enrolledAt,
  updatedAt: e.updatedAt,
});

export const senderView = (s: SenderAccountState) => ({
  id: s.id,
  type: s.type,
  address: s.address,
  userId: s.userId,
  dailyLimit: s.dailyLimit,
  createdAt: s.createdAt,
});
