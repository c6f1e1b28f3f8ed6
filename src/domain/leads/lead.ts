import { AppError, type FieldError } from '../../errors.ts';
import {
  cleanText,
  nameKey,
  normaliseDomain,
  normaliseEmail,
  normaliseLinkedin,
  normalisePhone,
} from './normalise.ts';

/** The scalar fields of a lead: a merge fills the empty ones and never overwrites another. */
export const LEAD_FIELDS = [
  'firstName',
  'lastName',
  'fullName',
  'title',
  'companyName',
  'companyDomain',
  'linkedinUrl',
] as const;
export type LeadField = (typeof LEAD_FIELDS)[number];
export type LeadFields = Record<LeadField, string | null>;

export interface LeadEmail {
  address: string;
  source: string;
}
export interface LeadPhone {
  number: string;
  source: string;
}
/** A row a lead was made or merged from (add_to_crm). */
export interface LeadSource {
  tableId: string;
  rowId: string;
  columnId: string;
}

/** A lead's content, or a record about to become or join one: every value normalised. */
export interface LeadData extends LeadFields {
  emailAddresses: LeadEmail[];
  phoneNumbers: LeadPhone[];
  sources: LeadSource[];
}

export const emptyLeadData = (): LeadData => ({
  firstName: null,
  lastName: null,
  fullName: null,
  title: null,
  companyName: null,
  companyDomain: null,
  linkedinUrl: null,
  emailAddresses: [],
  phoneNumbers: [],
  sources: [],
});

/** What a record says before normalisation: emails and phones as strings or as objects. */
export interface RawLead {
  firstName?: unknown;
  lastName?: unknown;
  fullName?: unknown;
  title?: unknown;
  companyName?: unknown;
  companyDomain?: unknown;
  linkedinUrl?: unknown;
  emailAddresses?: readonly unknown[];
  phoneNumbers?: readonly unknown[];
}

const NORMALISERS: Partial<Record<LeadField, (value: string) => string | undefined>> = {
  companyDomain: normaliseDomain,
  linkedinUrl: normaliseLinkedin,
};

const entryValue = (entry: unknown, key: 'address' | 'number'): unknown =>
  entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>)[key] : entry;
const sourceOf = (entry: unknown, fallback: string): string => {
  const source =
    entry !== null && typeof entry === 'object' ? (entry as { source?: unknown }).source : undefined;
  return cleanText(source) ?? fallback;
};

/**
 * A record in canonical form, and what in it was not a value of its kind (an email that is not one, a
 * phone without a country prefix, a LinkedIn URL that is not a profile). `source` labels the emails and
 * phones that do not name their own.
 */
export function normaliseLead(raw: RawLead, source: string): { data: LeadData; errors: FieldError[] } {
  const data = emptyLeadData();
  const errors: FieldError[] = [];
  for (const field of LEAD_FIELDS) {
    const text = cleanText(raw[field]);
    if (text === undefined) continue;
    const normalise = NORMALISERS[field];
    const value = normalise ? normalise(text) : text;
    if (value === undefined) errors.push({ path: field, message: `not a ${describe[field]}` });
    else data[field] = value;
  }
  if (data.fullName === null && (data.firstName || data.lastName)) {
    data.fullName = [data.firstName, data.lastName].filter(Boolean).join(' ');
  }
  (raw.emailAddresses ?? []).forEach((entry, i) => {
    const text = cleanText(entryValue(entry, 'address'));
    const address = text === undefined ? undefined : normaliseEmail(text);
    if (address === undefined) errors.push({ path: `emailAddresses[${i}]`, message: 'not an email address' });
    else if (!data.emailAddresses.some((e) => e.address === address))
      data.emailAddresses.push({ address, source: sourceOf(entry, source) });
  });
  (raw.phoneNumbers ?? []).forEach((entry, i) => {
    const text = cleanText(entryValue(entry, 'number'));
    const number = text === undefined ? undefined : normalisePhone(text);
    if (number === undefined)
      errors.push({
        path: `phoneNumbers[${i}]`,
        message: 'not a phone number with its country prefix (+...)',
      });
    else if (!data.phoneNumbers.some((p) => p.number === number))
      data.phoneNumbers.push({ number, source: sourceOf(entry, source) });
  });
  return { data, errors };
}

/**
 * A record as a caller sent it, normalised: a 400 naming each value that is not one of its kind, or,
 * with `needsIdentity`, a record with no key to find it by.
 */
export function normaliseOrRefuse(raw: RawLead, source: string, needsIdentity: boolean): LeadData {
  const { data, errors } = normaliseLead(raw, source);
  if (errors.length > 0) {
    throw new AppError('validation_failed', `Invalid lead: ${errors.map((e) => e.path).join(', ')}`, {
      errors,
    });
  }
  if (needsIdentity && identityKeys(data).length === 0) {
    throw new AppError(
      'validation_failed',
      'A lead needs a LinkedIn URL, an email, or a full name with a company domain.',
      {
        errors: [
          {
            path: 'linkedinUrl',
            message: 'send linkedinUrl, emailAddresses, or fullName with companyDomain',
          },
        ],
      },
    );
  }
  return data;
}

const describe: Record<LeadField, string> = {
  firstName: 'name',
  lastName: 'name',
  fullName: 'name',
  title: 'title',
  companyName: 'company name',
  companyDomain: 'domain (example.com)',
  linkedinUrl: 'LinkedIn profile URL (linkedin.com/in/...)',
};

/**
 * The keys a lead is found by, strongest first: its LinkedIn URL, each email, its full name with its
 * company domain. A phone number is never one: people share switchboards.
 */
export function identityKeys(lead: LeadData): string[] {
  const keys: string[] = [];
  if (lead.linkedinUrl) keys.push(`li:${lead.linkedinUrl}`);
  for (const { address } of lead.emailAddresses) keys.push(`em:${address}`);
  if (lead.fullName && lead.companyDomain) keys.push(`nd:${nameKey(lead.fullName)}@${lead.companyDomain}`);
  return keys;
}

/**
 * Whether two records are the same person: the same LinkedIn URL; else (one has none) a shared email;
 * else the same full name at the same company domain. Different LinkedIn URLs never are.
 */
export function sameLead(a: LeadData, b: LeadData): boolean {
  if (a.linkedinUrl && b.linkedinUrl) return a.linkedinUrl === b.linkedinUrl;
  const bKeys = new Set(identityKeys(b));
  return identityKeys(a).some((key) => !key.startsWith('li:') && bKeys.has(key));
}

/** Whether two records may be one lead at all (a key they share then says they are). */
export const compatible = (a: LeadData, b: LeadData): boolean =>
  !(a.linkedinUrl && b.linkedinUrl && a.linkedinUrl !== b.linkedinUrl);

/** What merging `input` into `lead` adds: empty fields filled, new emails, phones and sources. */
export interface LeadAdditions {
  fields: Partial<LeadFields>;
  emailAddresses: LeadEmail[];
  phoneNumbers: LeadPhone[];
  sources: LeadSource[];
}

const sameSource = (a: LeadSource, b: LeadSource) =>
  a.tableId === b.tableId && a.rowId === b.rowId && a.columnId === b.columnId;

/** The additions of a merge, or undefined when the input adds nothing. Never overwrites a value. */
export function additions(lead: LeadData, input: LeadData): LeadAdditions | undefined {
  const fields: Partial<LeadFields> = {};
  for (const field of LEAD_FIELDS) {
    if (!lead[field] && input[field]) fields[field] = input[field];
  }
  const emailAddresses = input.emailAddresses.filter(
    (e) => !lead.emailAddresses.some((known) => known.address === e.address),
  );
  const phoneNumbers = input.phoneNumbers.filter(
    (p) => !lead.phoneNumbers.some((known) => known.number === p.number),
  );
  const sources = input.sources.filter((s) => !lead.sources.some((known) => sameSource(known, s)));
  const none =
    Object.keys(fields).length === 0 &&
    emailAddresses.length === 0 &&
    phoneNumbers.length === 0 &&
    sources.length === 0;
  return none ? undefined : { fields, emailAddresses, phoneNumbers, sources };
}

export function applyAdditions(lead: LeadData, add: LeadAdditions): LeadData {
  return {
    ...lead,
    ...add.fields,
    emailAddresses: [...lead.emailAddresses, ...add.emailAddresses],
    phoneNumbers: [...lead.phoneNumbers, ...add.phoneNumbers],
    sources: [...lead.sources, ...add.sources],
  };
}
