import { PROVIDER_CREDITS } from '../../../src/credits/prices.ts';
import { addToSequence } from '../../../src/domain/columns/config/add-to-sequence.ts';
import { addToSequenceExecutor } from '../executors/add-to-sequence.ts';
import { notImplementedExecutor } from '../executors/not-implemented.ts';
import { columnProvider, configOf } from './provider.ts';

/** add_to_sequence: enrolls a row's leads in a sequence (no outside cost; not run without a store). */
export const addToSequenceProvider = columnProvider({
  name: 'add_to_sequence',
  ...configOf(addToSequence),
  price: () => PROVIDER_CREDITS.add_to_sequence,
  executor: (deps) => (deps.leads ? addToSequenceExecutor(deps.leads) : notImplementedExecutor),
});
