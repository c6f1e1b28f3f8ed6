import { runCommands } from '../../commands/runs/index.ts';
import { runFinishWorker } from '../../processes/runs/finish-worker.ts';
import { executorDepsFrom, executorsFrom } from '../../processes/runs/providers/index.ts';
import { runWorker } from '../../processes/runs/run-worker.ts';
import { runReactor } from '../../projections/runs/run-reactor.ts';
import { runsProjection } from '../../projections/runs/runs.ts';
import { runQueries } from '../../queries/runs/index.ts';
import { columnRunStream, runStream } from '../../src/domain/runs/run-state.ts';
import type { Feature } from '../../src/feature.ts';

/** Column runs: durable jobs over a column's eligible rows, with credits reserved and settled. */
export const runsFeature: Feature = {
  name: 'runs',
  streams: [runStream, columnRunStream],
  commands: runCommands,
  queries: runQueries,
  projections: [runsProjection, runReactor],
  workers: [runWorker((deps) => executorsFrom(executorDepsFrom(deps))), runFinishWorker],
};
