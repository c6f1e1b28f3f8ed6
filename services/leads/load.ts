import type { Principal } from '../../src/auth/scopes.ts';
import { loadState } from '../../src/command.ts';
import { leadNotFound, otherOrganization } from '../../src/domain/leads/access.ts';
import { isLeadId } from '../../src/domain/leads/identity.ts';
import { type LeadState, leadStream } from '../../src/domain/leads/lead-state.ts';
import { AppError } from '../../src/errors.ts';
import type { EventStore } from '../../src/event-store/port.ts';

/**
 * The lead as its stream tells it, for a command: 404 when there is none (or it was deleted, or merged
 * into another: the error names that one), 403 when not the key's.
 */
export async function loadLeadForWrite(
  store: EventStore,
  leadId: string,
  principal: Principal,
): Promise<{ state: LeadState; revision: bigint | undefined }> {
  if (!isLeadId(leadId)) throw leadNotFound(leadId);
  const loaded = await loadState(store, leadStream.name(leadId), leadStream);
  const { state } = loaded;
  if (state.status === 'none') throw leadNotFound(leadId);
  if (state.organizationId !== principal.organizationId) throw otherOrganization();
  if (state.status === 'merged')
    throw new AppError('not_found', `Lead ${leadId} was merged into lead ${state.mergedInto}.`, {
      mergedInto: state.mergedInto,
    });
  if (state.status !== 'live') throw leadNotFound(leadId);
  return loaded;
}
