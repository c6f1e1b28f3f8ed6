import { escapeHtml } from '../../content/site/html.ts';

/**
 * Markup that is safe as it is. The console's pages are written with the `html` tag: every value
 * interpolated is escaped (as the blog's templates escape each value through escapeHtml), unless it is
 * itself Html made by the tag, so a page cannot forget to escape what an event, a stream name or an
 * error message holds.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | bigint | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup made elsewhere and already safe (an escaped fragment). Never for text from a request or the log. */
export const trusted = (text: string) => new Html(text);

export const join = (parts: readonly Html[], separator = '') =>
  new Html(parts.map((p) => p.text).join(separator));
