import type { Decider } from '../../command.ts';
import { AppError } from '../../errors.ts';
import {
  type EmailReservationEvent,
  type OrganizationEvent,
  STARTER_CREDITS,
  type UserEvent,
} from './events.ts';

/**
 * The deciders of the streams a bootstrap creates. Each refuses to create what exists already; the
 * email reservation is the one that can lose a race, and its refusal is the 409 of a taken email.
 */

export interface ReserveEmail {
  email: string;
  userId: string;
  organizationId: string;
}

export const emailReservationDecider: Decider<{ reserved: boolean }, ReserveEmail, EmailReservationEvent> = {
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
  decide: (command, state) => {
    if (state.reserved)
      throw new AppError('email_taken', 'An account with this email address exists already.');
    return [{ type: 'EmailReserved', data: { ...command } }];
  },
};

export interface CreateOrganization {
  organizationId: string;
  name: string;
  createdBy: string;
}

export const organizationDecider: Decider<
  { exists: boolean; balance: number },
  CreateOrganization,
  OrganizationEvent
> = {
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
  decide: (command, state) => {
    if (state.exists)
      throw new AppError('conflict', `Organization ${command.organizationId} exists already.`);
    return [
      { type: 'OrganizationCreated', data: { ...command } },
      {
        type: 'CreditsGranted',
        data: { organizationId: command.organizationId, amount: STARTER_CREDITS, reason: 'starter' },
      },
    ];
  },
};

export interface RegisterUser {
  userId: string;
  organizationId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  passwordHash: string;
}

export const userDecider: Decider<{ exists: boolean }, RegisterUser, UserEvent> = {
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
  decide: (command, state) => {
    if (state.exists) throw new AppError('conflict', `User ${command.userId} exists already.`);
    return [{ type: 'UserRegistered', data: { ...command } }];
  },
};
