import { autorunWorker } from '../../processes/autorun/worker.ts';
import { autorunReactor } from '../../projections/autorun/autorun.ts';
import type { Feature } from '../../src/feature.ts';

/** Auto-run: columns that run by themselves on row inserts and source updates (docs/runs.md). */
export const autorunFeature: Feature = {
  name: 'autorun',
  streams: [],
  commands: [],
  queries: [],
  projections: [autorunReactor],
  workers: [autorunWorker],
};
