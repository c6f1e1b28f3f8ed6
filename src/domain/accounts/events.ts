import { z } from 'zod';
import { SCOPES } from '../../auth/scopes.ts';
import { eventRegistry } from '../../event-store/registry.ts';

/**
 * The events of accounts: the email reservation, organization, user and API key streams. None holds a
 * password or a key secret; only their hashes (scrypt for the password, SHA-256 for the secret).
 */
const id = z.string().min(1);
const scope = z.enum(SCOPES);

export const EmailReserved = eventRegistry.register(
  'EmailReserved',
  z.object({ email: z.string(), userId: id, organizationId: id }),
);

export const OrganizationCreated = eventRegistry.register(
  'OrganizationCreated',
  z.object({ organizationId: id, name: z.string(), createdBy: id }),
);

export const CreditsGranted = eventRegistry.register(
  'CreditsGranted',
  z.object({ organizationId: id, amount: z.number().int().positive(), reason: z.string() }),
);

export const UserRegistered = eventRegistry.register(
  'UserRegistered',
  z.object({
    userId: id,
    organizationId: id,
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    passwordHash: z.string().startsWith('scrypt$'),
  }),
);

export const ApiKeyIssued = eventRegistry.register(
  'ApiKeyIssued',
  z.object({
    keyId: id,
    organizationId: id,
    userId: id,
    name: z.string(),
    prefix: z.string(),
    scopes: z.array(scope),
    secretHash: z.string().regex(/^[0-9a-f]{64}$/),
  }),
);

export const ApiKeyRevoked = eventRegistry.register(
  'ApiKeyRevoked',
  z.object({ keyId: id, organizationId: id }),
);

type Of<T extends string, S extends z.ZodType> = { type: T; data: z.infer<S> };

export type EmailReservationEvent = Of<'EmailReserved', typeof EmailReserved>;
export type OrganizationEvent =
  | Of<'OrganizationCreated', typeof OrganizationCreated>
  | Of<'CreditsGranted', typeof CreditsGranted>;
export type UserEvent = Of<'UserRegistered', typeof UserRegistered>;
export type ApiKeyEvent = Of<'ApiKeyIssued', typeof ApiKeyIssued> | Of<'ApiKeyRevoked', typeof ApiKeyRevoked>;

/** Credits a new organization starts with (contract, section 8). */
export const STARTER_CREDITS = 50;
