import { parsePhoneNumberFromString } from 'libphonenumber-js';

/**
 * One canonical form per value, so that identity keys compare equal for the same person however a
 * source spelled them. Each answers undefined for a value that is not one (it then takes no part in
 * identity; the caller says whether that is an error).
 */

const clean = (value: string) => value.trim().replace(/\s+/g, ' ');

/** Emails: trimmed and lower-cased (providers treat the local part case-insensitively in practice). */
export function normaliseEmail(value: string): string | undefined {
  const email = value.trim().toLowerCase();
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : undefined;
}

/** Domains: lower-cased, without scheme, credentials, `www.`, port, path, query or trailing dot. */
export function normaliseDomain(value: string): string | undefined {
  let text = value.trim().toLowerCase();
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  text = text.replace(/^[^/@]*@/, '');
  text = text.split(/[/?#]/)[0]!.replace(/:\d*$/, '').replace(/\.$/, '');
  text = text.replace(/^www\d*\./, '');
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(text) ? text : undefined;
}

/**
 * LinkedIn profiles: `https://www.linkedin.com/in/<slug>` whatever the subdomain (country, mobile),
 * scheme, case, query, fragment or trailing path; the slug percent-decoded and lower-cased (LinkedIn
 * serves a profile under any case of its slug). Anything that is not a profile URL is not one.
 */
export function normaliseLinkedin(value: string): string | undefined {
  const text = value.trim();
  const withScheme = /^[a-z]+:\/\//i.test(text) ? text : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return undefined;
  }
  const host = url.hostname.toLowerCase();
  if (host !== 'linkedin.com' && !host.endsWith('.linkedin.com')) return undefined;
  const match = /^\/(in|pub)\/([^/]+)/i.exec(url.pathname);
  if (!match) return undefined;
  let slug: string;
  try {
    slug = decodeURIComponent(match[2]!);
  } catch {
    return undefined;
  }
  slug = slug.trim().toLowerCase();
  if (slug === '') return undefined;
  return `https://www.linkedin.com/in/${encodeURIComponent(slug)}`;
}

/**
 * Phone numbers: E.164 by libphonenumber-js (its metadata knows every country's plan). A number
 * without an international prefix has no country to read it in, so it is not one.
 */
export function normalisePhone(value: string): string | undefined {
  const parsed = parsePhoneNumberFromString(value.trim());
  return parsed?.isPossible() ? parsed.number : undefined;
}

/** A name as identity compares it: spaces collapsed, case folded. */
export const nameKey = (value: string): string => clean(value).toLowerCase();

/** A display field: trimmed with spaces collapsed, or undefined when nothing is left. */
export function cleanText(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return undefined;
  const text = clean(value);
  return text === '' ? undefined : text.slice(0, 500);
}
