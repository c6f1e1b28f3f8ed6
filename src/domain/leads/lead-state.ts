import { createHash } from 'node:crypto';
import { defineStream } from '../../stream.ts';
import { type LeadEvent, leadEvents, leadKeyEvents } from './events.ts';
import { applyAdditions, emptyLeadData, type LeadData } from './lead.ts';

export interface LeadState {
  /** `none` before creation; `merged` once folded into `mergedInto`. */
  status: 'none' | 'live' | 'merged' | 'deleted';
  id: string;
  organizationId: string;
  data: LeadData;
  mergedInto: string | null;
  createdAt: string;
  updatedAt: string;
}

export const initialLeadState = (): LeadState => ({
  status: 'none',
  id: '',
  organizationId: '',
  data: emptyLeadData(),
  mergedInto: null,
  createdAt: '',
  updatedAt: '',
});

export function evolveLead(state: LeadState, event: LeadEvent): LeadState {
  switch (event.type) {
    case 'LeadCreated': {
      const { leadId, organizationId, at, ...data } = event.data;
      return { ...state, status: 'live', id: leadId, organizationId, data, createdAt: at, updatedAt: at };
    }
    case 'LeadMerged':
      return { ...state, data: applyAdditions(state.data, event.data.additions), updatedAt: event.data.at };
    case 'LeadEdited': {
      const { fields, emailAddresses, phoneNumbers, at } = event.data;
      const data = {
        ...state.data,
        ...fields,
        emailAddresses: emailAddresses ?? state.data.emailAddresses,
        phoneNumbers: phoneNumbers ?? state.data.phoneNumbers,
      };
      return { ...state, data, updatedAt: at };
    }
    case 'LeadMergedInto':
      return { ...state, status: 'merged', mergedInto: event.data.into, updatedAt: event.data.at };
    case 'LeadDeleted':
      return { ...state, status: 'deleted', updatedAt: event.data.at };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** `lead-<leadId>`: one lead's content, its merges and edits. */
export const leadStream = defineStream({
  category: 'lead',
  id: (leadId: string) => leadId,
  events: leadEvents,
  initialState: initialLeadState,
  evolve: evolveLead,
  history: { description: 'a lead: its fields, emails, phones and sources, or where it was merged' },
});

/**
 * `leadkey-<organizationId>.<hash of the key>`: the lead an identity key (li:, em:, nd:) names in an
 * organization. The first claim is appended expecting no stream, so of any number of concurrent
 * records of one person exactly one lead holds each key; the others merge into it. The key is hashed
 * into the name (an email or URL has characters a stream name should not), and kept in the event.
 */
export const leadKeyStream = defineStream({
  category: 'leadkey',
  id: (organizationId: string, key: string) =>
    `${organizationId}.${createHash('sha256').update(key).digest('hex').slice(0, 40)}`,
  events: leadKeyEvents,
  initialState: (): { holder: string | undefined } => ({ holder: undefined }),
  evolve: (_state, event) => ({ holder: event.data.leadId }),
  history: { description: 'the lead an identity key (LinkedIn URL, email, name at domain) names' },
});
