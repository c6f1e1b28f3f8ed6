import { tableCommands } from '../../commands/tables/index.ts';
import { tablesProjection } from '../../projections/tables/tables.ts';
import { tableQueries } from '../../queries/tables/index.ts';
import type { Feature } from '../../src/feature.ts';
import { tableStream } from '../../src/domain/tables/table-state.ts';

/** Research tables (their columns are the columns feature). */
export const tablesFeature: Feature = {
  name: 'tables',
  streams: [tableStream],
  commands: tableCommands,
  queries: tableQueries,
  projections: [tablesProjection],
};
