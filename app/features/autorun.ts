import { autorunWorker } from '../../processes/autorun/worker.ts';
import { PROVIDER_SPECS } from '../../processes/runs/providers/index.ts';
import { autorunReactorWith } from '../../projections/autorun/autorun.ts';
import type { Feature } from '../../src/feature.ts';

/** The auto-run reactor, reading which columns a column reads from the provider registry. */
export const autorunReactor = autorunReactorWith(PROVIDER_SPECS);

/** Auto-run: columns that run by themselves on row inserts and source updates (docs/runs.md). */
export const autorunFeature: Feature = {
  name: 'autorun',
  streams: [],
  commands: [],
  queries: [],
  projections: [autorunReactor],
  workers: [autorunWorker],
};
