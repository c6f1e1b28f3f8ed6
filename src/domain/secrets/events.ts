import { z } from 'zod';
import type { EventsOf } from '../../stream.ts';

/**
 * Events of a secret's stream. No value, no mask, no key: only the value encrypted under the data key
 * `keyId`, which lives outside the log (secret_data_keys) and is deleted when the version is replaced
 * or the secret deleted. From then on this ciphertext is noise.
 */
export const secretEvents = {
  SecretValueSet: z.object({
    organizationId: z.string(),
    name: z.string(),
    version: z.number().int().positive(),
    keyId: z.string(),
    /** base64url of IV, GCM tag and ciphertext (envelope.ts). */
    ciphertext: z.string(),
    at: z.string(),
  }),
  SecretDeleted: z.object({ organizationId: z.string(), name: z.string(), at: z.string() }),
};

export type SecretEvent = EventsOf<typeof secretEvents>;
export type SecretValueSet = Extract<SecretEvent, { type: 'SecretValueSet' }>['data'];
