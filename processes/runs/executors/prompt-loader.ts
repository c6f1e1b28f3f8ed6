import { loadState } from '../../../src/command.ts';
import { isPromptId } from '../../../src/domain/prompts/access.ts';
import { promptStream } from '../../../src/domain/prompts/prompt-state.ts';
import type { PromptVariable } from '../../../src/domain/prompts/template.ts';
import type { EventStore } from '../../../src/event-store/port.ts';

export interface PromptRef {
  organizationId: string;
  promptTemplateId: string;
  /** Unpinned: the latest version. */
  promptVersion?: number;
}

export interface LoadedPrompt {
  template: string;
  variables: PromptVariable[];
  version: number;
}

/** The prompt template an llm column names, or undefined when it (or that version) is gone or another organization's. */
export type PromptLoader = (ref: PromptRef) => Promise<LoadedPrompt | undefined>;

/**
 * Reads the template from its stream, not from the read model: a version created a moment ago is
 * used at once, and a deleted template is seen as deleted.
 */
export const promptLoaderFrom =
  (store: EventStore): PromptLoader =>
  async ({ organizationId, promptTemplateId, promptVersion }) => {
    if (!isPromptId(promptTemplateId)) return undefined;
    const { state } = await loadState(store, promptStream.name(promptTemplateId), promptStream);
    if (!state.exists || state.organizationId !== organizationId) return undefined;
    const version =
      promptVersion === undefined
        ? state.versions.at(-1)
        : state.versions.find((v) => v.version === promptVersion);
    return version && { template: version.template, variables: version.variables, version: version.version };
  };
