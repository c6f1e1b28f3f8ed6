import { leadCommands } from '../../commands/leads/index.ts';
import { leadsProjection } from '../../projections/leads/leads.ts';
import { leadQueries } from '../../queries/leads/index.ts';
import { leadKeyStream, leadStream } from '../../src/domain/leads/lead-state.ts';
import type { Feature } from '../../src/feature.ts';

/** Leads: canonical, de-duplicated people, made by hand or by add_to_crm columns. */
export const leadsFeature: Feature = {
  name: 'leads',
  streams: [leadStream, leadKeyStream],
  commands: leadCommands,
  queries: leadQueries,
  projections: [leadsProjection],
};
