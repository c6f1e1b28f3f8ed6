import { promptCommands } from '../../commands/prompts/index.ts';
import { promptsProjection } from '../../projections/prompts/prompts.ts';
import { promptQueries } from '../../queries/prompts/index.ts';
import { promptNamesStream, promptStream } from '../../src/domain/prompts/prompt-state.ts';
import type { Feature } from '../../src/feature.ts';

/** Prompt templates: immutable versions of `{{variable}}` text, named by llm column configs. */
export const promptsFeature: Feature = {
  name: 'prompts',
  streams: [promptStream, promptNamesStream],
  commands: promptCommands,
  queries: promptQueries,
  projections: [promptsProjection],
};
