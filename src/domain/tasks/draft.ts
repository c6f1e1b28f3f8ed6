import { AppError } from '../../errors.ts';
import type { LeadData } from '../leads/lead.ts';
import { placeholderNames, renderTemplate, type VariableValue } from '../prompts/template.ts';

/**
 * The lead's fields a draft may name (firstName, lastName, fullName, title, companyName,
 * companyDomain, linkedinUrl, email): the plain render's `{{placeholders}}` and a step's prompt
 * template's variables alike. A field the lead lacks is null.
 */
export function leadFields(lead: LeadData): Record<string, string | null> {
  const { emailAddresses, phoneNumbers: _, sources: __, ...fields } = lead;
  return { ...fields, email: emailAddresses[0]?.address ?? null };
}

/**
 * A step's text with `{{field}}` placeholders filled from the lead's fields; a field the lead lacks
 * renders empty, as an optional prompt variable does. A text that would be longer than a render may
 * produce (MAX_RENDERED_CHARS) is a 422 `template_output_too_large` naming the draft's `field`.
 */
export function renderForLead(text: string, lead: LeadData, field: 'subject' | 'body' = 'body'): string {
  const values: Record<string, VariableValue> = {};
  const known = leadFields(lead);
  const names = placeholderNames(text);
  for (const name of names) {
    const value = known[name];
    if (typeof value === 'string') values[name] = value;
  }
  const rendered = renderTemplate(
    text,
    names.map((name) => ({ name, required: false })),
    values,
  );
  if (!rendered.ok && rendered.tooLarge) {
    const why = rendered.errors[0]!.message.replace(/^with this value, /, "with this lead's ");
    throw new AppError('template_output_too_large', `The email's ${field} cannot be drafted: ${why}.`, {
      errors: [{ path: field, message: why }],
    });
  }
  return rendered.ok ? rendered.value : text;
}
