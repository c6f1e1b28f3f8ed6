import { getPromptRoute } from './get-prompt.ts';
import { listPromptsRoute } from './list-prompts.ts';
import { listVersionsRoute } from './list-versions.ts';
import { renderPromptRoute } from './render-prompt.ts';

export const promptQueries = [listPromptsRoute, getPromptRoute, listVersionsRoute, renderPromptRoute];
