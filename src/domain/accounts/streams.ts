import type { Scope } from '../../auth/scopes.ts';
import { defineStream } from '../../stream.ts';
import {
  apiKeyEvents,
  emailReservationEvents,
  loginEvents,
  organizationEvents,
  userEvents,
} from './events.ts';

/** What a bootstrap in progress will create, named before it creates any of it. */
export interface BootstrapAttempt {
  userId: string;
  organizationId: string;
  keyId: string;
  passwordHash: string;
  /** ISO time of the reservation. */
  reservedAt: string;
}

export type EmailReservationState =
  | { status: 'free' }
  | { status: 'pending'; attempt: BootstrapAttempt }
  | { status: 'completed'; userId: string; organizationId: string };

/**
 * `email-<address>`: who holds an address. A bootstrap reserves it (pending), then completes it once
 * every part exists; an unfinished one releases it. Appended with the revision read, so of any number
 * of bootstraps of one address exactly one holds it at a time.
 *
 * A reservation of version 1 (before bootstraps could be undone) named no attempt: it counts as
 * completed. Nearly all of them were, and the one unsafe mistake would be to let a stranger take over
 * an account that exists; an unfinished one of those days stays reserved, as it did then.
 */
export const emailReservationStream = defineStream({
  category: 'email',
  id: (email: string) => email.toLowerCase(),
  events: emailReservationEvents,
  initialState: (): EmailReservationState => ({ status: 'free' }),
  evolve: (_state, event): EmailReservationState => {
    switch (event.type) {
      case 'EmailReserved': {
        const { userId, organizationId, keyId, passwordHash, reservedAt } = event.data;
        if (keyId === null || passwordHash === null || reservedAt === null)
          return { status: 'completed', userId, organizationId };
        return { status: 'pending', attempt: { userId, organizationId, keyId, passwordHash, reservedAt } };
      }
      case 'EmailHeldByMember':
      case 'BootstrapCompleted':
        return { status: 'completed', userId: event.data.userId, organizationId: event.data.organizationId };
      case 'EmailReleased':
        return { status: 'free' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  history: {
    description: 'who holds an email address: free, a bootstrap in progress, or an account',
    view: (state) => {
      if (state.status !== 'pending') return state;
      const { passwordHash: _hash, ...attempt } = state.attempt;
      return { status: state.status, attempt };
    },
  },
});

/**
 * How long an unfinished bootstrap keeps its address from a stranger (another password). Its owner,
 * proving the same password, takes it over at once; either only once no process works on it any more
 * (commands/accounts/bootstrap-account.ts holds a lock for that).
 */
export const TAKEOVER_GRACE_MS = 10 * 60_000;

/** Whether a new bootstrap may undo an unfinished one and take its address. */
export function takeoverAllowed(attempt: BootstrapAttempt, samePassword: boolean, now: Date): boolean {
  return samePassword || now.getTime() - Date.parse(attempt.reservedAt) >= TAKEOVER_GRACE_MS;
}

export interface OrganizationState {
  exists: boolean;
  /** Given up with its bootstrap: nothing may create it again. */
  abandoned: boolean;
  balance: number;
  /**
   * Reservations not settled yet, by run (or search call): what each holds. A start tried again finds
   * its own reservation here and does not reserve twice; a settlement (charge or refund) closes it.
   */
  reservations: ReadonlyMap<string, number>;
}

const without = (map: ReadonlyMap<string, number>, key: string) => {
  if (!map.has(key)) return map;
  const next = new Map(map);
  next.delete(key);
  return next;
};

/** `organization-<id>`: the organization and its credit balance. */
export const organizationStream = defineStream({
  category: 'organization',
  id: (organizationId: string) => organizationId,
  events: organizationEvents,
  initialState: (): OrganizationState => ({
    exists: false,
    abandoned: false,
    balance: 0,
    reservations: new Map(),
  }),
  evolve: (state, event): OrganizationState => {
    switch (event.type) {
      case 'OrganizationCreated':
        return { ...state, exists: true };
      case 'CreditsGranted':
        return { ...state, balance: state.balance + event.data.amount };
      case 'OrganizationAbandoned':
        return { ...state, abandoned: true, balance: 0 };
      case 'CreditsReserved':
        return {
          ...state,
          balance: state.balance - event.data.amount,
          reservations: new Map(state.reservations).set(event.data.runId, event.data.amount),
        };
      case 'CreditsCharged':
        return { ...state, reservations: without(state.reservations, event.data.runId) };
      case 'CreditsRefunded':
        return {
          ...state,
          balance: state.balance + event.data.amount,
          reservations: without(state.reservations, event.data.runId),
        };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  history: {
    description: 'an organization, its credit balance and its reservations not settled yet',
    view: (state) => ({ ...state, reservations: Object.fromEntries(state.reservations) }),
  },
});

export type UserState =
  | { status: 'none' }
  | { status: 'registered'; organizationId: string; passwordHash: string }
  | { status: 'member'; organizationId: string }
  | { status: 'abandoned' };

export const userStream = defineStream({
  category: 'user',
  id: (userId: string) => userId,
  events: userEvents,
  initialState: (): UserState => ({ status: 'none' }),
  evolve: (_state, event): UserState => {
    switch (event.type) {
      case 'UserRegistered':
        return {
          status: 'registered',
          organizationId: event.data.organizationId,
          passwordHash: event.data.passwordHash,
        };
      case 'MemberAdded':
        return { status: 'member', organizationId: event.data.organizationId };
      case 'UserAbandoned':
        return { status: 'abandoned' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  history: {
    description: 'a user: registered or abandoned (never the password hash)',
    view: (state) => ({ status: state.status }),
  },
});

export type ApiKeyState =
  | { status: 'none' }
  | { status: 'active' | 'revoked'; organizationId: string; scopes: readonly Scope[] };

/**
 * `apikey-<keyId>`: one API key's life, issued once and revoked at most once. A revocation of a key
 * never issued (an undone bootstrap's key) leaves it revoked with no scopes: it can never be issued.
 */
export const apiKeyStream = defineStream({
  category: 'apikey',
  id: (keyId: string) => keyId,
  events: apiKeyEvents,
  initialState: (): ApiKeyState => ({ status: 'none' }),
  evolve: (state, event): ApiKeyState => {
    switch (event.type) {
      case 'ApiKeyIssued':
        return { status: 'active', organizationId: event.data.organizationId, scopes: event.data.scopes };
      case 'ApiKeyRevoked':
        return state.status === 'none'
          ? { status: 'revoked', organizationId: event.data.organizationId, scopes: [] }
          : { ...state, status: 'revoked' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  history: { description: 'an API key: active or revoked, and its scopes (never its secret)' },
});

/**
 * `login-<userId>`: the failed logins of one user, apart from the user's stream so that however many
 * there are, a login (which reads the user's stream) does not read them. Only appended, never decided on.
 */
export const loginStream = defineStream({
  category: 'login',
  id: (userId: string) => userId,
  events: loginEvents,
  initialState: () => ({ failed: 0 }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'LoginFailed':
        return { failed: state.failed + 1 };
      default: {
        const never: never = event.type;
        return never;
      }
    }
  },
  history: { description: 'how many logins with the email of this user had a wrong password' },
});

export const accountStreams = [
  emailReservationStream,
  organizationStream,
  userStream,
  apiKeyStream,
  loginStream,
];
