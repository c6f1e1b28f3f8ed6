import type { Principal } from '../../src/auth/scopes.ts';
import { loadState } from '../../src/command.ts';
import { promptStream } from '../../src/domain/prompts/prompt-state.ts';
import {
  badReference,
  isSenderAccountId,
  isSequenceId,
  otherOrganization,
  senderNotFound,
  sequenceNotFound,
} from '../../src/domain/sequences/access.ts';
import { senderAccountStream, sequenceStream } from '../../src/domain/sequences/streams.ts';
import { isTableId } from '../../src/domain/tables/ids.ts';
import { tableStream } from '../../src/domain/tables/table-state.ts';
import type { EventStore } from '../../src/event-store/port.ts';

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
