import { ALPHABET } from '../../ids.ts';
import { defineStream } from '../../stream.ts';
import {
  type LeadEnrollmentEvent,
  leadEnrollmentEvents,
  routingEvents,
  type SENDER_TYPES,
  type SequenceEvent,
  type SequenceStep,
  senderAccountEvents,
  sequenceEvents,
  userSenderEvents,
} from './events.ts';
import type { EnrollmentStatus, SequenceStatus } from './machines.ts';

export interface SequenceState {
  exists: boolean;
  id: string;
  organizationId: string;
  name: string;
  sourceTableId: string | null;
  steps: SequenceStep[];
  status: SequenceStatus;
  clonedFrom: string | null;
  createdAt: string;
  updatedAt: string;
}

export const initialSequenceState = (): SequenceState => ({
  exists: false,
  id: '',
  organizationId: '',
  name: '',
  sourceTableId: null,
  steps: [],
  status: 'DRAFT',
  clonedFrom: null,
  createdAt: '',
  updatedAt: '',
});

export function evolveSequence(state: SequenceState, event: SequenceEvent): SequenceState {
  switch (event.type) {
    case 'SequenceCreated': {
      const { sequenceId, at, ...rest } = event.data;
      return {
        ...state,
        ...rest,
        exists: true,
        id: sequenceId,
        status: 'DRAFT',
        createdAt: at,
        updatedAt: at,
      };
    }
    case 'SequenceEdited': {
      const { sequenceId: _id, at, ...changes } = event.data;
      return { ...state, ...changes, updatedAt: at };
    }
    case 'SequenceStatusChanged':
      return { ...state, status: event.data.to, updatedAt: event.data.at };
    case 'SequenceDeleted':
      return { ...state, exists: false, updatedAt: event.data.at };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** `sequence-<sequenceId>`: a sequence's definition and status. */
export const sequenceStream = defineStream({
  category: 'sequence',
  id: (sequenceId: string) => sequenceId,
  events: sequenceEvents,
  initialState: initialSequenceState,
  evolve: evolveSequence,
  history: { description: 'a sequence: its name, source table, steps and status' },
});

export interface Enrollment {
  enrollmentId: string;
  organizationId: string;
  sequenceId: string;
  leadId: string;
  assigneeUserId: string | null;
  senderAccountIds: { email?: string; linkedin?: string };
  status: EnrollmentStatus;
  finishedReason: string | null;
  enrolledAt: string;
  updatedAt: string;
  /** Steps done so far: the index of the step that comes due next. */
  stepsDone: number;
  /** When the last step was done (the next one's waitDays count from here); null before the first. */
  lastStepAt: string | null;
}

/** A lead's enrollments by sequence id. */
export type LeadEnrollments = ReadonlyMap<string, Enrollment>;

export function evolveLeadEnrollments(state: LeadEnrollments, event: LeadEnrollmentEvent): LeadEnrollments {
  const next = new Map(state);
  if (event.type === 'LeadEnrolled') {
    const { at, ...data } = event.data;
    next.set(data.sequenceId, {
      ...data,
      status: 'active',
      finishedReason: null,
      enrolledAt: at,
      updatedAt: at,
      stepsDone: 0,
      lastStepAt: null,
    });
    return next;
  }
  if (event.type === 'EnrollmentStepDone') {
    const { enrollmentId, stepIndex, at } = event.data;
    for (const [sequenceId, enrollment] of next) {
      if (enrollment.enrollmentId === enrollmentId)
        next.set(sequenceId, { ...enrollment, stepsDone: stepIndex + 1, lastStepAt: at, updatedAt: at });
    }
    return next;
  }
  const { enrollmentId, to, finishedReason, at } = event.data;
  for (const [sequenceId, enrollment] of next) {
    if (enrollment.enrollmentId === enrollmentId)
      next.set(sequenceId, { ...enrollment, status: to, finishedReason, updatedAt: at });
  }
  return next;
}

/** `leadenrollments-<leadId>`: every enrollment of one lead, in any sequence. */
export const leadEnrollmentsStream = defineStream({
  category: 'leadenrollments',
  id: (leadId: string) => leadId,
  events: leadEnrollmentEvents,
  initialState: (): LeadEnrollments => new Map(),
  evolve: evolveLeadEnrollments,
  history: { description: "a lead's enrollments in sequences", view: (state) => [...state.values()] },
});

/**
 * An enrollment's id names its lead's stream and its sequence: `enr_` + the lead id's random part +
 * the sequence id's. A command on it reads one stream, with no lookup; one per (sequence, lead).
 */
export const enrollmentIdOf = (leadId: string, sequenceId: string) =>
  `enr_${leadId.slice(4)}${sequenceId.slice(4)}`;

const ENROLLMENT_ID = new RegExp(`^enr_([${ALPHABET}]{20})([${ALPHABET}]{20})$`);
export function parseEnrollmentId(enrollmentId: string): { leadId: string; sequenceId: string } | undefined {
  const match = ENROLLMENT_ID.exec(enrollmentId);
  return match ? { leadId: `led_${match[1]}`, sequenceId: `seq_${match[2]}` } : undefined;
}

export interface SenderAccountState {
  status: 'none' | 'live' | 'deleted';
  id: string;
  organizationId: string;
  type: (typeof SENDER_TYPES)[number];
  address: string;
  userId: string;
  dailyLimit: number;
  createdAt: string;
}

export const initialSenderState = (): SenderAccountState => ({
  status: 'none',
  id: '',
  organizationId: '',
  type: 'email',
  address: '',
  userId: '',
  dailyLimit: 0,
  createdAt: '',
});

/** `sender-<senderAccountId>`: an email or LinkedIn account outreach is sent from. */
export const senderAccountStream = defineStream({
  category: 'sender',
  id: (senderAccountId: string) => senderAccountId,
  events: senderAccountEvents,
  initialState: initialSenderState,
  evolve: (state, event): SenderAccountState => {
    if (event.type === 'SenderAccountDeleted') return { ...state, status: 'deleted' };
    const { senderAccountId, at, ...rest } = event.data;
    return { ...rest, status: 'live', id: senderAccountId, createdAt: at };
  },
  history: { description: 'a sender account: its type, address, owner and daily limit' },
});

/**
 * `usersenders-<organizationId>.<userId>`: the ids of the sender accounts made for a member, each
 * listed before its own stream is written, so that a member's default senders are read from the log
 * (an account made a moment ago counts; a read model may not have it yet). An id whose stream was never
 * written (its process died in between) or is deleted is passed over by readers.
 */
export const userSendersStream = defineStream({
  category: 'usersenders',
  id: (organizationId: string, userId: string) => `${organizationId}.${userId}`,
  events: userSenderEvents,
  initialState: (): readonly string[] => [],
  evolve: (state, event) => [...state, event.data.senderAccountId],
  history: { description: 'the sender accounts made for a member, in the order they were made' },
});

export interface RoutingState {
  /** Leads routed so far per assignee. */
  counts: ReadonlyMap<string, number>;
  /** Who each lead went to: a lead routed again (a row run twice) goes to the same assignee. */
  routed: ReadonlyMap<string, string>;
}

/**
 * `routing-<tableId>.<columnId>.<sequenceId>`: the round-robin state of one add_to_sequence
 * column. Every assignment is appended here with the revision read, so however many rows route at once
 * each decides on the counts of all the others: fair under concurrency (routing.ts).
 */
export const routingStream = defineStream({
  category: 'routing',
  id: (tableId: string, columnId: string, sequenceId: string) => `${tableId}.${columnId}.${sequenceId}`,
  events: routingEvents,
  initialState: (): RoutingState => ({ counts: new Map(), routed: new Map() }),
  evolve: (state, event): RoutingState => {
    const { leadId, assigneeUserId } = event.data;
    const counts = new Map(state.counts);
    counts.set(assigneeUserId, (counts.get(assigneeUserId) ?? 0) + 1);
    return { counts, routed: new Map(state.routed).set(leadId, assigneeUserId) };
  },
  history: {
    description: 'how many leads an add_to_sequence column routed to each assignee',
    view: (state) => Object.fromEntries(state.counts),
  },
});
