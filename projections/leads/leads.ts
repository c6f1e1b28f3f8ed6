import type { LeadData } from '../../src/domain/leads/lead.ts';
import { initialLeadState, type LeadState, leadStream } from '../../src/domain/leads/lead-state.ts';
import { singleStreamProjection } from '../../src/projection/single-stream.ts';

/** Logical name of the read model; queries import it from here. */
export const LEADS = 'leads';

export interface StoredLead {
  id: string;
  organization_id: string;
  data: LeadData;
  /** Lower-case name, emails and domain, for `q`. */
  search: string;
  created_at: string;
  updated_at: string;
}

const searchText = (data: LeadData) =>
  [
    data.fullName,
    data.firstName,
    data.lastName,
    data.companyDomain,
    ...data.emailAddresses.map((e) => e.address),
  ]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();

/**
 * Live leads by organization, for listing and search. A lead merged into another or deleted leaves
 * it. Identity lookups do NOT read this table (it lags): they go through the key streams.
 */
export const leadsProjection = singleStreamProjection({
  name: 'leads',
  version: 1,
  stream: leadStream,
  handles: ['LeadCreated', 'LeadMerged', 'LeadEdited', 'LeadMergedInto', 'LeadDeleted'],
  idOf: (event) => event.data.leadId,
  table: {
    name: LEADS,
    key: 'id',
    columns: {
      id: 'text',
      organization_id: 'text',
      data: 'jsonb',
      search: 'text',
      created_at: 'text',
      updated_at: 'text',
    },
    indexes: (t) => [`CREATE INDEX ${t}_by_organization ON ${t} (organization_id, created_at, id)`],
  },
  toRow: (state: LeadState): StoredLead | undefined =>
    state.status === 'live'
      ? {
          id: state.id,
          organization_id: state.organizationId,
          data: state.data,
          search: searchText(state.data),
          created_at: state.createdAt,
          updated_at: state.updatedAt,
        }
      : undefined,
  fromRow: (row: StoredLead): LeadState => ({
    ...initialLeadState(),
    status: 'live',
    id: row.id,
    organizationId: row.organization_id,
    data: row.data,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }),
});
