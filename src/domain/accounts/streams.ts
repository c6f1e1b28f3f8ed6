import type { Scope } from '../../auth/scopes.ts';
import { defineStream } from '../../stream.ts';
import { apiKeyEvents, emailReservationEvents, organizationEvents, userEvents } from './events.ts';

/** `email-<address>`: reserved with expected revision no_stream, so the one writer of an email wins. */
export const emailReservationStream = defineStream({
  category: 'email',
  id: (email: string) => email.toLowerCase(),
  events: emailReservationEvents,
  initialState: () => ({ reserved: false }),
  evolve: (_state, event) => {
    switch (event.type) {
      case 'EmailReserved':
        return { reserved: true };
      default: {
        const never: never = event.type;
        return never;
      }
    }
  },
});

/** `organization-<id>`: the organization and its credit balance. */
export const organizationStream = defineStream({
  category: 'organization',
  id: (organizationId: string) => organizationId,
  events: organizationEvents,
  initialState: () => ({ exists: false, balance: 0 }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'OrganizationCreated':
        return { ...state, exists: true };
      case 'CreditsGranted':
        return { ...state, balance: state.balance + event.data.amount };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  history: { description: 'an organization and its credit balance' },
});

export const userStream = defineStream({
  category: 'user',
  id: (userId: string) => userId,
  events: userEvents,
  initialState: () => ({ exists: false }),
  evolve: (_state, event) => {
    switch (event.type) {
      case 'UserRegistered':
        return { exists: true };
      default: {
        const never: never = event.type;
        return never;
      }
    }
  },
});

export type ApiKeyState =
  | { status: 'none' }
  | { status: 'active' | 'revoked'; organizationId: string; scopes: readonly Scope[] };

/** `apikey-<keyId>`: one API key's life, issued once and revoked at most once. */
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
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  history: { description: 'an API key: active or revoked, and its scopes (never its secret)' },
});

export const accountStreams = [emailReservationStream, organizationStream, userStream, apiKeyStream];
