import { z } from 'zod';
import type { EventsOf } from '../../stream.ts';

const text = z.string().nullable();
const fields = {
  firstName: text,
  lastName: text,
  fullName: text,
  title: text,
  companyName: text,
  companyDomain: text,
  linkedinUrl: text,
};
const Email = z.object({ address: z.string(), source: z.string() });
const Phone = z.object({ number: z.string(), source: z.string() });
const Source = z.object({ tableId: z.string(), rowId: z.string(), columnId: z.string() });
const Additions = z.object({
  fields: z.object(fields).partial(),
  emailAddresses: z.array(Email),
  phoneNumbers: z.array(Phone),
  sources: z.array(Source),
});

/** Events of a lead's stream (leadStream). */
export const leadEvents = {
  LeadCreated: z.object({
    leadId: z.string(),
    organizationId: z.string(),
    ...fields,
    emailAddresses: z.array(Email),
    phoneNumbers: z.array(Phone),
    sources: z.array(Source),
    at: z.string(),
  }),
  /** A record of the same person merged in: only what it added (`from`: a lead absorbed whole). */
  LeadMerged: z.object({
    leadId: z.string(),
    additions: Additions,
    from: z.string().nullable(),
    at: z.string(),
  }),
  /** An explicit edit (PATCH): the only event that overwrites a value. */
  LeadEdited: z.object({
    leadId: z.string(),
    fields: z.object(fields).partial(),
    emailAddresses: z.array(Email).optional(),
    phoneNumbers: z.array(Phone).optional(),
    at: z.string(),
  }),
  /** Found to be the same person as an older lead: its content went there, its keys lead there. */
  LeadMergedInto: z.object({ leadId: z.string(), into: z.string(), at: z.string() }),
  LeadDeleted: z.object({ leadId: z.string(), at: z.string() }),
};

/** Events of an identity key's claim stream (leadKeyStream): which lead a key names. */
export const leadKeyEvents = {
  LeadKeyClaimed: z.object({ organizationId: z.string(), key: z.string(), leadId: z.string() }),
};

export type LeadEvent = EventsOf<typeof leadEvents>;
export type LeadKeyEvent = EventsOf<typeof leadKeyEvents>;
