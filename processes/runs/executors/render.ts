import { isSecretPlaceholder, PLACEHOLDER } from '../../../src/domain/columns/references.ts';
import type { ExecutorContext } from '../executor.ts';

export type RowError = { code: string; message: string };

export type Rendered<T> = { ok: true; value: T } | { ok: false; error: RowError };

/** How an inserted value is written where it lands (URL-encoded in a URL, as it is in a header). */
export type Encode = (text: string, offset: number) => string;

const raw: Encode = (text) => text;

/** A cell as text: a string as it is, nothing for an empty cell, JSON for numbers, booleans and JSON. */
export const cellText = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * Fills `{{column_key}}` and `{{secrets.name}}` placeholders for one row. Secrets are read once per row
 * (a URL and a header naming the same secret get the same value) and only when a template names them.
 */
export class RowTemplates {
  private readonly secrets = new Map<string, Promise<string | undefined>>();

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
    const text = template.replace(PLACEHOLDER, (match, name: string, offset: number) => {
      if (isSecretPlaceholder(name)) return this.options.secrets ? encode(values.get(name)!, offset) : match;
      return encode(cellText(this.context.row.cells[name]), offset);
    });
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
        return { ok: true, value: this.context.row.cells[whole] ?? null };
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
