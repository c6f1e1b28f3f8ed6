import { tableCommands } from '../../commands/tables/index.ts';
import { tablesProjection } from '../../projections/tables/tables.ts';
import { tableQueries } from '../../queries/tables/index.ts';
import { tableStream } from '../../src/domain/tables/table-state.ts';
import type { Feature } from '../../src/feature.ts';

/** Research tables (their columns are the columns feature). */
export const tablesFeature: Feature = {
  name: 'tables',
  streams: [tableStream],
  commands: tableCommands,
  queries: tableQueries,
  projections: [tablesProjection],
};
