import { columnCommands } from '../../commands/columns/index.ts';
import { columnsProjection } from '../../projections/columns/columns.ts';
import { columnQueries } from '../../queries/columns/index.ts';
import { columnStream } from '../../src/domain/columns/column-state.ts';
import type { Feature } from '../../src/feature.ts';

/** The columns of research tables: config, run conditions, auto-run, order, history. */
export const columnsFeature: Feature = {
  name: 'columns',
  streams: [columnStream],
  commands: columnCommands,
  queries: columnQueries,
  projections: [columnsProjection],
};
