import { z } from 'zod';

/** What `{{secrets.name}}` placeholders name: case-sensitive, like an identifier. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const MAX_VALUE_BYTES = 32_768;

const BULLETS = '•'.repeat(8);
/** Values shorter than this (in characters) show no character at all. */
const SHOWS_TAIL_FROM = 12;

/**
 * What the API shows of a value: eight bullets and its last 4 characters, or the bullets alone for a
 * value shorter than 12 characters (its tail would be too large a part of it).
 */
export function maskValue(value: string): string {
  const chars = Array.from(value);
  return chars.length < SHOWS_TAIL_FROM ? BULLETS : `${BULLETS}${chars.slice(-4).join('')}`;
}

/** A mask read back and sent again must not overwrite the real value. */
export const looksLikeMask = (value: string) => /^•{8}(?:[\s\S]{4})?$/u.test(value);

export const SecretNameSchema = z
  .string()
  .regex(SECRET_NAME, 'a name is a letter or _ then up to 63 letters, digits or _ (case-sensitive)');

export const SecretParams = z.object({ name: SecretNameSchema });

// The messages never quote the value: a problem body is logged and shown, the value must not be.
export const PutSecretBody = z.strictObject({
  value: z
    .string()
    .min(1, 'the value is empty')
    .refine((v) => Buffer.byteLength(v, 'utf8') <= MAX_VALUE_BYTES, {
      message: `the value is longer than ${MAX_VALUE_BYTES} bytes (UTF-8)`,
    })
    .refine((v) => !looksLikeMask(v), {
      message: 'the value looks like a masked value this API shows; send the real value',
    }),
});

export const SecretSchema = z
  .object({
    name: z.string(),
    version: z.number().int(),
    maskedValue: z.string().describe('eight • and the last 4 characters (none below 12 characters)'),
    createdAt: z.string(),
    updatedAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .meta({ id: 'Secret' });

export type SecretView = z.infer<typeof SecretSchema>;
