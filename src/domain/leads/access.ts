import type { Principal } from '../../auth/scopes.ts';
import { AppError } from '../../errors.ts';
import type { LeadState } from './lead-state.ts';
import type { LeadView } from './schemas.ts';

export const leadNotFound = (leadId: string) => new AppError('not_found', `No lead ${leadId}.`);
export const otherOrganization = () => new AppError('forbidden', 'The lead belongs to another organization.');

/** The same checks for a query, on the read-model row it read (undefined: no such lead). */
export function readableLead<Row extends { organization_id: string }>(
  row: Row | undefined,
  leadId: string,
  principal: Principal,
): Row {
  if (!row) throw leadNotFound(leadId);
  if (row.organization_id !== principal.organizationId) throw otherOrganization();
  return row;
}

export const leadView = (state: LeadState): LeadView => ({
  id: state.id,
  ...state.data,
  createdAt: state.createdAt,
  updatedAt: state.updatedAt,
});
