import { handleCommand, loadState } from '../../src/command.ts';
import type { PromptNameEvent } from '../../src/domain/prompts/events.ts';
import { promptNamesStream, promptStream } from '../../src/domain/prompts/prompt-state.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata, EventStore } from '../../src/event-store/port.ts';

/** A template takes a name (create), gives one up (delete), or both (rename). */
export interface MovePromptName {
  organizationId: string;
  promptId: string;
  from?: string;
  to?: string;
  /** The template holding `to` when it is known to be deleted (its release was lost): it yields. */
  deletedHolder?: string;
}

/** On the organization's names stream: a name another template holds is a 409 naming it. */
export const movePromptName = promptNamesStream.decider(
  ({ organizationId, promptId, from, to, deletedHolder }: MovePromptName, names): PromptNameEvent[] => {
    if (from === to) return [];
    const holder = to === undefined ? undefined : names.get(to);
    if (to !== undefined && holder !== undefined && holder !== promptId && holder !== deletedHolder) {
      throw new AppError(
        'prompt_name_taken',
        `The name ${to} is already used by prompt template ${holder}.`,
        {
          errors: [{ path: 'name', message: `${to} is taken in this organization; send another name` }],
        },
      );
    }
    const events: PromptNameEvent[] = [];
    if (to !== undefined && holder !== undefined && holder !== promptId) {
      events.push({ type: 'PromptNameReleased', data: { organizationId, name: to, promptId: holder } });
    }
    if (to !== undefined && holder !== promptId) {
      events.push({ type: 'PromptNameClaimed', data: { organizationId, name: to, promptId } });
    }
    if (from !== undefined && names.get(from) === promptId) {
      events.push({ type: 'PromptNameReleased', data: { organizationId, name: from, promptId } });
    }
    return events;
  },
);

/**
 * Moves a template's name on its organization's names stream. A name still held by a deleted template
 * (a delete whose release did not land) is taken over rather than refused for ever.
 */
export async function movePromptNameOf(
  deps: { store: EventStore; clock: () => Date },
  move: Omit<MovePromptName, 'deletedHolder'>,
  metadata: EventMetadata,
): Promise<void> {
  const stream = promptNamesStream.name(move.organizationId);
  let deletedHolder: string | undefined;
  if (move.to !== undefined) {
    const holder = (await loadState(deps.store, stream, promptNamesStream)).state.get(move.to);
    if (holder !== undefined && holder !== move.promptId) {
      const held = await loadState(deps.store, promptStream.name(holder), promptStream);
      // Created, then deleted; not one still being created (its stream is empty until it lands).
      if (held.state.id !== '' && !held.state.exists) deletedHolder = holder;
    }
  }
  await handleCommand({
    store: deps.store,
    stream,
    decider: movePromptName,
    command: { ...move, deletedHolder },
    metadata,
    now: deps.clock(),
  });
}
