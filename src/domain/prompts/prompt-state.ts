import { defineStream } from '../../stream.ts';
import { type PromptEvent, type PromptNameEvent, promptEvents, promptNameEvents } from './events.ts';
import type { PromptVariable } from './template.ts';

export interface PromptVersion {
  version: number;
  name: string;
  description: string | null;
  template: string;
  variables: PromptVariable[];
  createdAt: string;
}

export interface PromptState {
  exists: boolean;
  id: string;
  organizationId: string;
  createdAt: string;
  /** Oldest first; the last is the latest. */
  versions: readonly PromptVersion[];
}

export const initialPromptState = (): PromptState => ({
  exists: false,
  id: '',
  organizationId: '',
  createdAt: '',
  versions: [],
});

export function evolvePrompt(state: PromptState, event: PromptEvent): PromptState {
  switch (event.type) {
    case 'PromptTemplateCreated': {
      const { promptId, organizationId, at, ...content } = event.data;
      return {
        exists: true,
        id: promptId,
        organizationId,
        createdAt: at,
        versions: [{ version: 1, ...content, createdAt: at }],
      };
    }
    case 'PromptTemplateVersioned': {
      const { promptId: _id, organizationId: _org, at, ...content } = event.data;
      return { ...state, versions: [...state.versions, { ...content, createdAt: at }] };
    }
    case 'PromptTemplateDeleted':
      return { ...state, exists: false };
    default: {
      const never: never = event;
      return never;
    }
  }
}

export const latestVersion = (state: PromptState): PromptVersion => state.versions.at(-1)!;

/** A version as the API shows it: the template's id and creation, the version's content and time. */
export const promptView = (state: Pick<PromptState, 'id' | 'createdAt'>, version: PromptVersion) => ({
  id: state.id,
  name: version.name,
  description: version.description,
  template: version.template,
  variables: version.variables,
  version: version.version,
  createdAt: state.createdAt,
  updatedAt: version.createdAt,
});

/** `prompt-<promptId>`: a prompt template and all its versions. */
export const promptStream = defineStream({
  category: 'prompt',
  id: (promptId: string) => promptId,
  events: promptEvents,
  initialState: initialPromptState,
  evolve: evolvePrompt,
  history: {
    description: 'a prompt template: its latest version',
    view: (state) =>
      state.versions.length > 0 ? { ...promptView(state, latestVersion(state)), exists: state.exists } : null,
  },
});

/** Which prompt holds each name of an organization. */
export type PromptNames = ReadonlyMap<string, string>;

export function evolvePromptNames(names: PromptNames, event: PromptNameEvent): PromptNames {
  const next = new Map(names);
  switch (event.type) {
    case 'PromptNameClaimed':
      next.set(event.data.name, event.data.promptId);
      return next;
    case 'PromptNameReleased':
      if (next.get(event.data.name) === event.data.promptId) next.delete(event.data.name);
      return next;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** `promptnames-<organizationId>`: the prompt template names in use in an organization. */
export const promptNamesStream = defineStream({
  category: 'promptnames',
  id: (organizationId: string) => organizationId,
  events: promptNameEvents,
  initialState: (): PromptNames => new Map(),
  evolve: evolvePromptNames,
  history: {
    description: 'the prompt template names of an organization',
    view: (names) => Object.fromEntries(names),
  },
});
