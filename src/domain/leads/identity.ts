import { idForm, randomId } from '../../ids.ts';
import type { LeadEvent } from './events.ts';
import { additions, compatible, type LeadData } from './lead.ts';
import { type LeadState, leadKeyStream, leadStream } from './lead-state.ts';

export const newLeadId = () => randomId('led');
export const isLeadId = idForm('led');

/**
 * Merges a record into a live lead it is compatible with; nothing when the lead is no longer live or
 * the record names another LinkedIn profile (the caller reads the state it was decided on and says so).
 */
export const mergeIntoLead = leadStream.decider(
  (command: { data: LeadData; from: string | null }, state, now): LeadEvent[] => {
    if (state.status !== 'live' || !compatible(state.data, command.data)) return [];
    const added = additions(state.data, command.data);
    if (!added) return [];
    return [
      {
        type: 'LeadMerged',
        data: { leadId: state.id, additions: added, from: command.from, at: now.toISOString() },
      },
    ];
  },
);

/**
 * Creates the lead from a record, or merges the record into it when another record of the same person
 * created it first (both were told the id by the same key claim): the lead's own stream decides which.
 */
export const createOrMergeLead = leadStream.decider(
  (command: { leadId: string; organizationId: string; data: LeadData }, state, now): LeadEvent[] => {
    if (state.status !== 'none') return mergeIntoLead.decide({ data: command.data, from: null }, state, now);
    const { leadId, organizationId, data } = command;
    return [{ type: 'LeadCreated', data: { leadId, organizationId, ...data, at: now.toISOString() } }];
  },
);

/** A live lead folded into an older one; nothing when it is not live any more. */
export const markMergedInto = leadStream.decider((command: { into: string }, state, now): LeadEvent[] =>
  state.status === 'live'
    ? [{ type: 'LeadMergedInto', data: { leadId: state.id, into: command.into, at: now.toISOString() } }]
    : [],
);

/** A key goes to the first lead that claims it, or from a holder known to be deleted. */
export const claimKey = leadKeyStream.decider(
  (command: { organizationId: string; key: string; leadId: string; replacing?: string }, state) =>
    state.holder === undefined || state.holder === command.replacing
      ? [
          {
            type: 'LeadKeyClaimed' as const,
            data: { organizationId: command.organizationId, key: command.key, leadId: command.leadId },
          },
        ]
      : [],
);

/** Leads are ordered by age (then id): a merge always goes from the younger to the older, so never in a cycle. */
export const older = (a: LeadState, b: LeadState) =>
  a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);
