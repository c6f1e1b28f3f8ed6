import type { LeadData } from '../leads/lead.ts';
import { placeholderNames, renderTemplate, type VariableValue } from '../prompts/template.ts';

/**
 * A step's text with `{{field}}` placeholders filled from the lead's fields (firstName, lastName,
 * fullName, title, companyName, companyDomain, linkedinUrl, email); a field the lead lacks renders
 * empty, as an optional prompt variable does.
 */
export function renderForLead(text: string, lead: LeadData): string {
  const values: Record<string, VariableValue> = {};
  const { emailAddresses, phoneNumbers: _, sources: __, ...fields } = lead;
  const known: Record<string, string | null> = { ...fields, email: emailAddresses[0]?.address ?? null };
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
  return rendered.ok ? rendered.value : text;
}
