import type { Principal } from '../../src/auth/scopes.ts';
import { loadState } from '../../src/command.ts';
import { isPromptId, otherOrganization, promptNotFound } from '../../src/domain/prompts/access.ts';
import { type PromptState, promptStream } from '../../src/domain/prompts/prompt-state.ts';
import type { EventStore } from '../../src/event-store/port.ts';

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
