import { z } from 'zod';
import { pageQuery } from '../../http/pagination.ts';

// The id's form is checked in the handlers: a malformed id names nothing and answers 404, not 400.
export const LeadParams = z.object({ leadId: z.string() });

const Text = z.string().trim().min(1).max(500);
const Source = z.string().trim().min(1).max(200);
const EmailIn = z.union([
  z.string().max(320),
  z.strictObject({ address: z.string().max(320), source: Source.optional() }),
]);
const PhoneIn = z.union([
  z.string().max(50),
  z.strictObject({ number: z.string().max(50), source: Source.optional() }),
]);

const fieldsIn = {
  firstName: Text,
  lastName: Text,
  fullName: Text.describe('default: firstName and lastName'),
  title: Text,
  companyName: Text,
  companyDomain: Text.describe('a domain or URL; stored lower-case without scheme, www. or path'),
  linkedinUrl: Text.describe('a LinkedIn profile URL; stored in one canonical form'),
};

export const CreateLeadBody = z.strictObject({
  ...Object.fromEntries(Object.entries(fieldsIn).map(([k, v]) => [k, v.optional()])),
  emailAddresses: z.array(EmailIn).max(50).optional().describe('strings or { address, source }'),
  phoneNumbers: z
    .array(PhoneIn)
    .max(50)
    .optional()
    .describe('E.164 or with +country; strings or { number, source }'),
}) as z.ZodType<CreateLeadInput>;

export interface CreateLeadInput {
  firstName?: string;
  lastName?: string;
  fullName?: string;
  title?: string;
  companyName?: string;
  companyDomain?: string;
  linkedinUrl?: string;
  emailAddresses?: (string | { address: string; source?: string })[];
  phoneNumbers?: (string | { number: string; source?: string })[];
}

/** A PATCH sets the fields it names (null clears one) and replaces the email or phone list it sends. */
export const PatchLeadBody = z
  .strictObject({
    ...Object.fromEntries(Object.entries(fieldsIn).map(([k, v]) => [k, v.nullable().optional()])),
    emailAddresses: z.array(EmailIn).max(50).optional(),
    phoneNumbers: z.array(PhoneIn).max(50).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'send at least one field' }) as z.ZodType<
  { [K in keyof Omit<CreateLeadInput, 'emailAddresses' | 'phoneNumbers'>]?: string | null } & Pick<
    CreateLeadInput,
    'emailAddresses' | 'phoneNumbers'
  >
>;

const nullableText = z.string().nullable();
export const LeadSchema = z
  .object({
    id: z.string(),
    firstName: nullableText,
    lastName: nullableText,
    fullName: nullableText,
    title: nullableText,
    companyName: nullableText,
    companyDomain: nullableText,
    linkedinUrl: nullableText,
    emailAddresses: z.array(z.object({ address: z.string(), source: z.string() })),
    phoneNumbers: z.array(z.object({ number: z.string(), source: z.string() })),
    sources: z.array(z.object({ tableId: z.string(), rowId: z.string(), columnId: z.string() })),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Lead' });

export type LeadView = z.infer<typeof LeadSchema>;

export const CreatedLeadSchema = LeadSchema.extend({
  merged: z.boolean().describe('true: the record merged into this existing lead'),
}).meta({ id: 'CreatedLead' });

export const ListLeadsQuery = pageQuery({ max: 100, default: 50 }).extend({
  q: z.string().trim().min(1).max(200).optional().describe('matches name, email or company domain'),
});
