import { AppError, type FieldError } from '../../errors.ts';
import { PLACEHOLDER, placeholders } from '../columns/references.ts';

/** A `{{variable}}` of a prompt template: letters, digits and _, not first a digit. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export interface PromptVariable {
  name: string;
  /** Placeholders are required unless declared with a default. */
  required: boolean;
  default?: string;
}

/** A variable as a request declares it: `required` follows from `default` when not given. */
export interface DeclaredVariable {
  name: string;
  required?: boolean;
  default?: string;
}

type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/**
 * The most characters a render may produce: 20 times the 100,000 a template or a variable's value may
 * hold. A template repeating one placeholder 20,000 times, filled with a 10,000-character value, made a
 * 200,000,000-character answer (and 30,000 characters ran past what a string can hold: a 500). Over the
 * bound a render fails before building anything.
 */
export const MAX_RENDERED_CHARS = 2_000_000;

/** A failed render: `tooLarge` when the output would be over MAX_RENDERED_CHARS. */
export type Rendering = { ok: true; value: string } | { ok: false; errors: FieldError[]; tooLarge?: true };

/** The message of a render over the bound, with the placeholder that weighs most. */
export const tooLargeMessage = (length: number, name: string, count: number) =>
  `with this value, {{${name}}} (${count === 1 ? 'once' : `${count} times`}) makes the text ` +
  `${length.toLocaleString('en-US')} characters long, over the ${MAX_RENDERED_CHARS.toLocaleString('en-US')} ` +
  'a render may produce';

/** The distinct placeholders of a template, in the order they first appear. */
export const placeholderNames = (template: string) => [...new Set(placeholders(template))];

/**
 * The variables of a template: those declared, each used by the template and every placeholder
 * declared; or, when none are declared, one required variable per placeholder. Every offending name
 * is named: a placeholder at `template`, a declaration at `variables[i]`.
 */
export function templateVariables(
  template: string,
  declared?: readonly DeclaredVariable[],
): Checked<PromptVariable[]> {
  const used = placeholderNames(template);
  const errors: FieldError[] = used
    .filter((name) => !VARIABLE_NAME.test(name))
    .map((name) => ({
      path: 'template',
      message: `{{${name}}} is not a variable name (a letter or _, then letters, digits or _)`,
    }));
  if (declared === undefined) {
    return errors.length > 0
      ? { ok: false, errors }
      : { ok: true, value: used.map((name) => ({ name, required: true })) };
  }
  const seen = new Set<string>();
  declared.forEach((v, i) => {
    if (seen.has(v.name))
      errors.push({ path: `variables[${i}].name`, message: `${v.name} is declared twice` });
    seen.add(v.name);
    if (!used.includes(v.name)) {
      errors.push({
        path: `variables[${i}].name`,
        message: `${v.name} is not used by the template ({{${v.name}}})`,
      });
    }
    if (v.required === true && v.default !== undefined) {
      errors.push({ path: `variables[${i}].required`, message: 'a variable with a default is not required' });
    }
  });
  for (const name of used.filter((n) => VARIABLE_NAME.test(n) && !seen.has(n))) {
    errors.push({ path: 'template', message: `{{${name}}} is not declared in variables` });
  }
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: declared.map(({ name, required, default: fallback }) => ({
      name,
      required: required ?? fallback === undefined,
      ...(fallback !== undefined ? { default: fallback } : {}),
    })),
  };
}

/**
 * A new template keeps the declarations of the variables it still uses; its new placeholders are
 * required variables (a PATCH that changes the template without sending variables).
 */
export const carriedVariables = (template: string, previous: readonly PromptVariable[]): DeclaredVariable[] =>
  placeholderNames(template).map((name) => previous.find((v) => v.name === name) ?? { name, required: true });

export type VariableValue = string | number | boolean;

/**
 * The template with each placeholder replaced by its given value, else its default, else (an optional
 * variable) nothing. A given variable the template does not have, or a required one not given, is an
 * error naming it (`variables.<name>`). The length is counted first: an output over MAX_RENDERED_CHARS
 * is `tooLarge`, naming the variable that weighs most, and is never built.
 */
export function renderTemplate(
  template: string,
  variables: readonly PromptVariable[],
  given: Readonly<Record<string, VariableValue>>,
): Rendering {
  const errors: FieldError[] = [
    ...Object.keys(given)
      .filter((name) => !variables.some((v) => v.name === name))
      .map((name) => ({ path: `variables.${name}`, message: 'not a variable of this template' })),
    ...variables
      .filter((v) => v.required && !Object.hasOwn(given, v.name))
      .map((v) => ({ path: `variables.${v.name}`, message: 'required, and not given' })),
  ];
  if (errors.length > 0) return { ok: false, errors };
  const textOf = (name: string) => {
    const value = Object.hasOwn(given, name) ? given[name] : variables.find((v) => v.name === name)?.default;
    return value === undefined ? '' : String(value);
  };
  const values = new Map<string, { text: string; count: number }>();
  let length = template.length;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    let used = values.get(name);
    if (!used) {
      used = { text: textOf(name), count: 0 };
      values.set(name, used);
    }
    used.count++;
    length += used.text.length - match[0].length;
  }
  if (length > MAX_RENDERED_CHARS) {
    const [name, heaviest] = [...values].reduce((a, b) =>
      b[1].text.length * b[1].count > a[1].text.length * a[1].count ? b : a,
    );
    const message = tooLargeMessage(length, name, heaviest.count);
    return { ok: false, tooLarge: true, errors: [{ path: `variables.${name}`, message }] };
  }
  return { ok: true, value: template.replace(PLACEHOLDER, (_match, name: string) => values.get(name)!.text) };
}

/** The 400 of a template whose placeholders and variables do not agree, naming each. */
export const invalidTemplate = (errors: FieldError[]) =>
  new AppError(
    'validation_failed',
    `Invalid template: ${[...new Set(errors.map((e) => e.path))].join(', ')}`,
    {
      errors,
    },
  );
