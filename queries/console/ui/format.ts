import { type Html, html } from './html.ts';

const number = new Intl.NumberFormat('en');

export const count = (n: number | bigint) => number.format(n);

/** A time as an operator reads it, in UTC, with the ISO form in the element for machines. */
export function time(at: Date | string | null | undefined): Html {
  if (!at) return html`-`;
  const date = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) return html`-`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`;
}

export function seconds(value: number): string {
  if (value < 1) return value === 0 ? '0 s' : '<1 s';
  if (value < 120) return `${Math.round(value)} s`;
  if (value < 7200) return `${Math.round(value / 60)} min`;
  return `${(value / 3600).toFixed(1)} h`;
}

export const position = (p: { commit: string; prepare: string } | null | undefined) =>
  p ? `${p.commit}/${p.prepare}` : '-';

/** JSON for a <pre>: indented, escaped by the tag. */
export const json = (value: unknown) =>
  html`<pre class="json">${JSON.stringify(value, null, 2) ?? 'null'}</pre>`;
