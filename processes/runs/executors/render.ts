import { isSecretPlaceholder, PLACEHOLDER } from '../../../src/domain/columns/references.ts';
import { MAX_RENDERED_CHARS } from '../../../src/domain/prompts/template.ts';
import type { ExecutorContext } from '../executor.ts';

export type RowError = { code: string; message: string };

export type Rendered<T> = { ok: true; value: T } | { ok: false; error: RowError };

/** How an inserted value is written where it lands (URL-encoded in a URL, as it is in a header). */
export type Encode = (text: string, offset: number) => string;

const raw: Encode = (text) => text;

/** A cell as text: a string as it is, nothing for an empty cell, JSON for numbers, booleans and JSON. */
export const cellText = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/** Thrown out of a replace to stop it before it builds a text over the bound. */
class OverBound {
  constructor(readonly name: string) {}
}

const tooLarge = (name: string): { ok: false; error: RowError } => ({
  ok: false,
  error: {
    code: 'template_output_too_large',
    message:
      `filled with this row's {{${name}}}, the templates would render over the ` +
      `${MAX_RENDERED_CHARS.toLocaleString('en-US')} characters a render may produce`,
  },
});

/**
 * Fills `{{column_key}}` and `{{secrets.name}}` placeholders for one row. Secrets are read once per row
 * (a URL and a header naming the same secret get the same value) and only when a template names them.
 * Everything one instance renders (a request's URL, headers and body) is at most MAX_RENDERED_CHARS
 * together: past it a render stops where it is, without building its text, and fails the row with
 * `template_output_too_large`.
 */
export class RowTemplates {
  private readonly secrets = new Map<string, Promise<string | undefined>>();
  /** Characters rendered so far by this instance. */
  private rendered = 0;
  /** The JSON text length of cells that a whole-string placeholder puts into a JSON template as they are. */
  private readonly jsonLengths = new Map<string, number>();

  constructor(
    private readonly context: Pick<ExecutorContext, 'row' | 'resolveSecret'>,
    private readonly options: { secrets: boolean } = { secrets: true },
  ) {}

  /** `template` with each placeholder replaced by its value, written by `encode`. */
  async text(template: string, encode: Encode = raw): Promise<Rendered<string>> {
    const matches = [...template.matchAll(PLACEHOLDER)];
    const secretNames = matches
      .map((m) => m[1]!)
      .filter((name) => this.options.secrets && isSecretPlaceholder(name));
    const values = new Map<string, string>();
    for (const name of new Set(secretNames)) {
      const secret = name.slice('secrets.'.length);
      const value = await this.secret(secret);
      if (value === undefined) {
        return {
          ok: false,
          error: { code: 'secret_not_found', message: `no workspace secret is named ${secret}` },
        };
      }
      values.set(name, value);
    }
    // The text around the placeholders, then each value as it is written: counted before it is kept.
    let length = this.rendered + template.length;
    const bounded = (piece: string, match: string, name: string) => {
      length += piece.length - match.length;
      if (length > MAX_RENDERED_CHARS) throw new OverBound(name);
      return piece;
    };
    let text: string;
    try {
      if (length > MAX_RENDERED_CHARS) throw new OverBound(matches[0]?.[1] ?? 'template');
      text = template.replace(PLACEHOLDER, (match, name: string, offset: number) => {
        if (isSecretPlaceholder(name))
          return this.options.secrets ? bounded(encode(values.get(name)!, offset), match, name) : match;
        return bounded(encode(cellText(this.context.row.cells[name]), offset), match, name);
      });
    } catch (error) {
      if (error instanceof OverBound) return tooLarge(error.name);
      throw error;
    }
    this.rendered = length;
    return { ok: true, value: text };
  }

  /**
   * A JSON template: every string inside rendered on its own, so an inserted value can never break
   * the JSON around it (JSON.stringify escapes it). A string that is exactly one `{{column_key}}` takes
   * the cell's own JSON value (a number stays a number, a JSON cell stays an object; empty is null).
   */
  async json(template: unknown): Promise<Rendered<unknown>> {
    if (typeof template === 'string') {
      const whole = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(template)?.[1];
      if (whole !== undefined && !isSecretPlaceholder(whole)) {
        // The cell goes in as it is, and is written out with the body: it counts as its JSON text.
        const value = this.context.row.cells[whole] ?? null;
        let size = this.jsonLengths.get(whole);
        if (size === undefined) {
          size = JSON.stringify(value).length;
          this.jsonLengths.set(whole, size);
        }
        if (this.rendered + size > MAX_RENDERED_CHARS) return tooLarge(whole);
        this.rendered += size;
        return { ok: true, value };
      }
      return this.text(template);
    }
    if (Array.isArray(template)) return this.all(template);
    if (template !== null && typeof template === 'object') {
      const entries = Object.entries(template);
      const values = await this.all(entries.map(([, v]) => v));
      if (!values.ok) return values;
      return {
        ok: true,
        value: Object.fromEntries(entries.map(([k], i) => [k, (values.value as unknown[])[i]])),
      };
    }
    return { ok: true, value: template };
  }

  private async all(templates: readonly unknown[]): Promise<Rendered<unknown[]>> {
    const out: unknown[] = [];
    for (const item of templates) {
      const rendered = await this.json(item);
      if (!rendered.ok) return rendered;
      out.push(rendered.value);
    }
    return { ok: true, value: out };
  }

  private secret(name: string): Promise<string | undefined> {
    let value = this.secrets.get(name);
    if (!value) {
      value = this.context.resolveSecret(name);
      this.secrets.set(name, value);
    }
    return value;
  }
}
