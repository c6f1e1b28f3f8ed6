import { llmCreditsPerRow } from '../../../src/credits/prices.ts';
import { llm } from '../../../src/domain/columns/config/open-providers.ts';
import { llmExecutor } from '../executors/llm.ts';
import { columnProvider, configOf } from './provider.ts';

/** llm: a prompt per row to the model of its lane, priced by the lane. */
export const llmProvider = columnProvider({
  name: 'llm',
  ...configOf(llm),
  price: llmCreditsPerRow,
  executor: (deps) => llmExecutor({ settings: deps.llm, loadPrompt: deps.loadPrompt }),
});
