import { handleCommand, loadState } from '../../src/command.ts';
import { STARTER_CREDITS, type UndoReason } from '../../src/domain/accounts/events.ts';
import {
  apiKeyStream,
  type BootstrapAttempt,
  emailReservationStream,
  organizationStream,
  userStream,
} from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata, EventStore } from '../../src/event-store/port.ts';

/*
 * The deciders of one bootstrap attempt, on the four streams it writes, and how an unfinished attempt
 * is undone. The reservation names the attempt's ids before anything else is written, so whoever
 * finds it unfinished (its own error handler, or a later bootstrap of the address after a crash) knows
 * exactly what to undo. Undoing marks each part abandoned whether it was written or not: a part not
 * written yet can then never be, so a writer that was only slow cannot bring one back afterwards.
 */

export interface ReserveEmail extends BootstrapAttempt {
  email: string;
}

export const reserveEmail = emailReservationStream.decider((command: ReserveEmail, state) => {
  if (state.status === 'completed')
    throw new AppError('email_taken', 'An account with this email address exists already.');
  if (state.status === 'pending') throw unfinishedElsewhere();
  return [{ type: 'EmailReserved', data: { ...command } }];
});

export const unfinishedElsewhere = () =>
  new AppError(
    'email_taken',
    'A sign-up with this email address has not finished. Retry with the same password to finish it; ' +
      'with another password, the address is free again 10 minutes after that sign-up began.',
  );

export interface AttemptRef {
  email: string;
  userId: string;
  organizationId: string;
  keyId: string;
}

/** The last step: the address now belongs to the account, unless another bootstrap took it over. */
export const completeBootstrap = emailReservationStream.decider((command: AttemptRef, state) => {
  if (state.status === 'pending' && state.attempt.userId === command.userId)
    return [{ type: 'BootstrapCompleted', data: { ...command } }];
  if (state.status === 'completed' && state.userId === command.userId) return [];
  throw new AppError('email_taken', 'Another sign-up with this email address took it over meanwhile.');
});

/** Gives the address back, if this attempt still holds it (an attempt taken over holds nothing). */
export const releaseEmail = emailReservationStream.decider(
  (command: AttemptRef & { reason: UndoReason }, state) => {
    if (state.status !== 'pending' || state.attempt.userId !== command.userId) return [];
    const { email, userId, organizationId, reason } = command;
    return [{ type: 'EmailReleased', data: { email, userId, organizationId, reason } }];
  },
);

export interface CreateOrganization {
  organizationId: string;
  name: string;
  createdBy: string;
}

export const createOrganization = organizationStream.decider((command: CreateOrganization, state) => {
  if (state.exists || state.abandoned)
    throw new AppError('conflict', `Organization ${command.organizationId} exists already.`);
  return [
    { type: 'OrganizationCreated', data: { ...command } },
    {
      type: 'CreditsGranted',
      data: { organizationId: command.organizationId, amount: STARTER_CREDITS, reason: 'starter' },
    },
  ];
});

/** Nobody will ever hold a key to it: its credits are withdrawn with it. */
export const abandonOrganization = organizationStream.decider(
  (command: { organizationId: string; reason: UndoReason }, state) => {
    if (state.abandoned) return [];
    return [{ type: 'OrganizationAbandoned', data: { ...command, creditsWithdrawn: state.balance } }];
  },
);

export interface RegisterUser {
  userId: string;
  organizationId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  passwordHash: string;
}

export const registerUser = userStream.decider((command: RegisterUser, state) => {
  if (state.status !== 'none') throw new AppError('conflict', `User ${command.userId} exists already.`);
  return [{ type: 'UserRegistered', data: { ...command } }];
});

export const abandonUser = userStream.decider((command: { userId: string; reason: UndoReason }, state) =>
  state.status === 'abandoned' ? [] : [{ type: 'UserAbandoned', data: { ...command } }],
);

/** Revokes the attempt's key, issued or not: its secret was never shown to anyone. */
export const voidKey = apiKeyStream.decider((command: { keyId: string; organizationId: string }, state) =>
  state.status === 'revoked' ? [] : [{ type: 'ApiKeyRevoked', data: { ...command } }],
);

/**
 * Undoes an unfinished attempt: its parts abandoned first, then the address released. A crash in
 * between leaves the reservation pending with its parts already abandoned, and the next bootstrap of
 * the address undoes it again (every step is a no-op the second time). An attempt that completed is
 * never undone: 'completed' says so, and nothing is written.
 */
export async function undoAttempt(
  deps: { store: EventStore; clock: () => Date },
  ref: AttemptRef,
  reason: UndoReason,
  metadata: EventMetadata,
): Promise<'undone' | 'completed'> {
  const email = emailReservationStream.name(ref.email);
  const { state } = await loadState(deps.store, email, emailReservationStream);
  if (state.status === 'completed' && state.userId === ref.userId) return 'completed';
  const common = { store: deps.store, metadata, now: deps.clock() };
  const { organizationId, userId, keyId } = ref;
  await handleCommand({
    ...common,
    stream: organizationStream.name(organizationId),
    decider: abandonOrganization,
    command: { organizationId, reason },
  });
  await handleCommand({
    ...common,
    stream: userStream.name(userId),
    decider: abandonUser,
    command: { userId, reason },
  });
  await handleCommand({
    ...common,
    stream: apiKeyStream.name(keyId),
    decider: voidKey,
    command: { keyId, organizationId },
  });
  await handleCommand({ ...common, stream: email, decider: releaseEmail, command: { ...ref, reason } });
  return 'undone';
}
