import { z } from 'zod';
import { SCOPES } from '../../auth/scopes.ts';
import type { EventsOf } from '../../stream.ts';

/**
 * The events of accounts: the email reservation, organization, user, API key and login streams. None
 * holds a password or a key secret; only their hashes (scrypt for the password, SHA-256 for the secret).
 */
const id = z.string().min(1);
const scope = z.enum(SCOPES);
const passwordHash = z.string().startsWith('scrypt$');
/** Why a bootstrap's parts were given up: it failed, or a later bootstrap took its address over. */
const undoReason = z.enum(['failed', 'taken_over']);

/**
 * Version 2 names everything the bootstrap will create (so that whoever finds it unfinished can undo
 * exactly that), the password's hash (so that a retry can prove it is the same person) and when.
 * Version 1 named the user and organization only; it is read with nulls, as a bootstrap that finished
 * (src/domain/accounts/streams.ts says why).
 */
const EmailReserved = {
  schema: z.object({
    email: z.string(),
    userId: id,
    organizationId: id,
    keyId: id.nullable(),
    passwordHash: passwordHash.nullable(),
    reservedAt: z.iso.datetime().nullable(),
  }),
  version: 2,
  upcasters: {
    1: (data: unknown) => ({ ...(data as object), keyId: null, passwordHash: null, reservedAt: null }),
  },
};

/** Every part of the bootstrap exists: from here on the address belongs to this account for good. */
const BootstrapCompleted = z.object({ email: z.string(), userId: id, organizationId: id, keyId: id });

/** An unfinished bootstrap gave the address back (its parts are abandoned first). */
const EmailReleased = z.object({ email: z.string(), userId: id, organizationId: id, reason: undoReason });

const OrganizationCreated = z.object({ organizationId: id, name: z.string(), createdBy: id });

const CreditsGranted = z.object({
  organizationId: id,
  amount: z.number().int().positive(),
  reason: z.string(),
});

/**
 * Credits a column run holds from the start (its estimate, or what the balance covers): the balance
 * goes down at once, so concurrent runs can never spend the same credits. The run's end settles it:
 * what its rows cost is charged (the balance stays: it was held already) and the rest comes back.
 */
const runCredits = z.object({ organizationId: id, runId: id, amount: z.number().int().positive() });
const CreditsReserved = runCredits;
const CreditsCharged = runCredits;
const CreditsRefunded = runCredits;

/** The organization of an unfinished bootstrap: nobody holds a key to it, so its credits go. */
const OrganizationAbandoned = z.object({
  organizationId: id,
  reason: undoReason,
  creditsWithdrawn: z.number().int().nonnegative(),
});

const UserRegistered = z.object({
  userId: id,
  organizationId: id,
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  passwordHash,
});

/**
 * A member added to an organization by one of its keys (POST /api/users): a person tasks and
 * enrollments can be assigned to. No password: a member cannot log in (a later feature may invite).
 */
const MemberAdded = z.object({
  userId: id,
  organizationId: id,
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
});

/** A member's address, held for good so that no bootstrap registers it as another account. */
const EmailHeldByMember = z.object({ email: z.string(), userId: id, organizationId: id });

/** The user of an unfinished bootstrap: gone, so that the address can be registered again. */
const UserAbandoned = z.object({ userId: id, reason: undoReason });

const ApiKeyIssued = z.object({
  keyId: id,
  organizationId: id,
  userId: id,
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(scope),
  secretHash: z.string().regex(/^[0-9a-f]{64}$/),
});

const ApiKeyRevoked = z.object({ keyId: id, organizationId: id });

/** A login with this account's email and a wrong password. What was typed is not kept, in any form. */
const LoginFailed = z.object({ userId: id });

export const emailReservationEvents = { EmailReserved, BootstrapCompleted, EmailReleased, EmailHeldByMember };
export const organizationEvents = {
  OrganizationCreated,
  CreditsGranted,
  OrganizationAbandoned,
  CreditsReserved,
  CreditsCharged,
  CreditsRefunded,
};
export const userEvents = { UserRegistered, UserAbandoned, MemberAdded };
export const apiKeyEvents = { ApiKeyIssued, ApiKeyRevoked };
export const loginEvents = { LoginFailed };

export type EmailReservationEvent = EventsOf<typeof emailReservationEvents>;
export type OrganizationEvent = EventsOf<typeof organizationEvents>;
export type UserEvent = EventsOf<typeof userEvents>;
export type ApiKeyEvent = EventsOf<typeof apiKeyEvents>;
export type UndoReason = z.infer<typeof undoReason>;

/** Credits a new organization starts with (contract, section 8). */
export const STARTER_CREDITS = 50;
