import type { Principal } from '../../src/auth/scopes.ts';
import { loadState } from '../../src/command.ts';
import { AppError } from '../../src/errors.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { idForm, randomId } from '../../src/ids.ts';
import { type PromptState, promptStream } from '../../src/domain/prompts/prompt-state.ts';

export const newPromptId = () => randomId('prm');
export const isPromptId = idForm('prm');

export const promptNotFound = (promptId: string) =>
  new AppError('not_found', `No prompt template ${promptId}.`);
export const versionNotFound = (promptId: string, version: number) =>
  new AppError('not_found', `Prompt template ${promptId} has no version ${version}.`);
const otherOrganization = () =>
  new AppError('forbidden', 'The prompt template belongs to another organization.');

/** The template as its stream tells it, for a command: 404 when there is none, 403 when not the key's. */
export async function loadPromptForWrite(
  store: EventStore,
  promptId: string,
  principal: Principal,
): Promise<{ state: PromptState; revision: bigint | undefined }> {
  if (!isPromptId(promptId)) throw promptNotFound(promptId);
  const loaded = await loadState(store, promptStream.name(promptId), promptStream);
  if (!loaded.state.exists) throw promptNotFound(promptId);
  if (loaded.state.organizationId !== principal.organizationId) throw otherOrganization();
  return loaded;
}

/** The same checks for a query, on the read-model row it read (undefined: no such template). */
export function readablePrompt<Row extends { organization_id: string }>(
  row: Row | undefined,
  promptId: string,
  principal: Principal,
): Row {
  if (!row) throw promptNotFound(promptId);
  if (row.organization_id !== principal.organizationId) throw otherOrganization();
  return row;
}
