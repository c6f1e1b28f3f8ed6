import { z } from 'zod';
import { SCOPES } from '../../auth/scopes.ts';
import type { EventsOf } from '../../stream.ts';

/**
 * The events of accounts: the email reservation, organization, user and API key streams. None holds a
 * password or a key secret; only their hashes (scrypt for the password, SHA-256 for the secret).
 */
const id = z.string().min(1);
const scope = z.enum(SCOPES);

const EmailReserved = z.object({ email: z.string(), userId: id, organizationId: id });

const OrganizationCreated = z.object({ organizationId: id, name: z.string(), createdBy: id });

const CreditsGranted = z.object({
  organizationId: id,
  amount: z.number().int().positive(),
  reason: z.string(),
});

const UserRegistered = z.object({
  userId: id,
  organizationId: id,
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  passwordHash: z.string().startsWith('scrypt$'),
});

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

export const emailReservationEvents = { EmailReserved };
export const organizationEvents = { OrganizationCreated, CreditsGranted };
export const userEvents = { UserRegistered };
export const apiKeyEvents = { ApiKeyIssued, ApiKeyRevoked };

export type EmailReservationEvent = EventsOf<typeof emailReservationEvents>;
export type OrganizationEvent = EventsOf<typeof organizationEvents>;
export type UserEvent = EventsOf<typeof userEvents>;
export type ApiKeyEvent = EventsOf<typeof apiKeyEvents>;

/** Credits a new organization starts with (contract, section 8). */
export const STARTER_CREDITS = 50;
