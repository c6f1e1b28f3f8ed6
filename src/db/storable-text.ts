/**
 * Text PostgreSQL can store: neither `text` nor `jsonb` takes a NUL character, and `jsonb` refuses a
 * surrogate half without its other half (not Unicode text). Request input with either is refused at
 * the edge (src/http/input-guard.ts); text the service makes from what others send (a provider's error
 * message, a key it answered with) is made storable instead.
 */

// Code units of a surrogate half without its other half.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Why PostgreSQL could not store this text, if it could not. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'holds a NUL character (U+0000), which cannot be stored';
  if (LONE_SURROGATE.test(text)) return 'holds an unpaired UTF-16 surrogate, which is not valid Unicode';
  return undefined;
}

/** The text without its NUL characters, each unpaired surrogate replaced by U+FFFD. */
export const storableText = (text: string): string =>
  text.replaceAll('\u0000', '').replace(LONE_SURROGATES, '\ufffd');

/** At most `max` UTF-16 code units of the text, never ending in the first half of a pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
