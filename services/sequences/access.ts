import type { Principal } from '../../src/auth/scopes.ts';
import { loadState } from '../../src/command.ts';
import { AppError } from '../../src/errors.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { idForm, randomId } from '../../src/ids.ts';
import { promptStream } from '../../src/domain/prompts/prompt-state.ts';
import { isTableId } from '../../src/domain/tables/ids.ts';
import { tableStream } from '../../src/domain/tables/table-state.ts';
import { ENROLLMENT_MACHINE, SEQUENCE_MACHINE } from '../../src/domain/sequences/machines.ts';
import {
  type Enrollment,
  type SenderAccountState,
  type SequenceState,
  senderAccountStream,
  sequenceStream,
} from '../../src/domain/sequences/streams.ts';

export const newSequenceId = () => randomId('seq');
export const isSequenceId = idForm('seq');
export const newSenderAccountId = () => randomId('snd');
export const isSenderAccountId = idForm('snd');

export const sequencePath = (sequenceId: string) => `/api/sequences/${sequenceId}`;
export const senderAccountPath = (id: string) => `/api/sender-accounts/${id}`;

export const sequenceNotFound = (sequenceId: string) =>
  new AppError('not_found', `No sequence ${sequenceId}.`);
export const senderNotFound = (id: string) => new AppError('not_found', `No sender account ${id}.`);
const otherOrganization = (what: string) =>
  new AppError('forbidden', `The ${what} belongs to another organization.`);

/** The sequence as its stream tells it: 404 when there is none, 403 when not the key's. */
export async function loadSequenceForWrite(store: EventStore, sequenceId: string, principal: Principal) {
  if (!isSequenceId(sequenceId)) throw sequenceNotFound(sequenceId);
  const loaded = await loadState(store, sequenceStream.name(sequenceId), sequenceStream);
  if (!loaded.state.exists) throw sequenceNotFound(sequenceId);
  if (loaded.state.organizationId !== principal.organizationId) throw otherOrganization('sequence');
  return loaded;
}

export async function loadSenderForWrite(store: EventStore, id: string, principal: Principal) {
  if (!isSenderAccountId(id)) throw senderNotFound(id);
  const loaded = await loadState(store, senderAccountStream.name(id), senderAccountStream);
  if (loaded.state.status !== 'live') throw senderNotFound(id);
  if (loaded.state.organizationId !== principal.organizationId) throw otherOrganization('sender account');
  return loaded;
}

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

/**
 * What a sequence names must be the organization's: its `sourceTableId` a table, each email step's
 * `promptTemplateId` a prompt template (a template deleted later fails that step's draft instead).
 */
export async function checkSequenceReferences(
  store: EventStore,
  organizationId: string,
  body: { sourceTableId?: string | null; steps?: readonly { promptTemplateId?: string }[] },
) {
  const tableId = body.sourceTableId;
  if (tableId !== null && tableId !== undefined) {
    const state = isTableId(tableId)
      ? (await loadState(store, tableStream.name(tableId), tableStream)).state
      : undefined;
    if (!state?.exists || state.organizationId !== organizationId)
      throw badReference('sourceTableId', `no table ${tableId} in this organization`);
  }
  for (const [i, step] of (body.steps ?? []).entries()) {
    const promptId = step.promptTemplateId;
    if (promptId === undefined) continue;
    const { state } = await loadState(store, promptStream.name(promptId), promptStream);
    if (!state.exists || state.organizationId !== organizationId)
      throw badReference(
        `steps[${i}].promptTemplateId`,
        `no prompt template ${promptId} in this organization`,
      );
  }
}

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
