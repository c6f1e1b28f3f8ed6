import { createHash } from 'node:crypto';
import { escapeHtml } from './html.ts';

const STYLE = `body{margin:0;font:17px/1.6 system-ui,sans-serif;color:#1d1d1f;background:#fff}
header,main,footer{max-width:46rem;margin:0 auto;padding:1rem 1.25rem}
header a{font-weight:600;text-decoration:none;color:inherit}
a{color:#0b57d0}img{max-width:100%;height:auto}
pre{overflow:auto;background:#f5f5f7;padding:.75rem;border-radius:6px}
code{font:.9em ui-monospace,monospace}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.3rem .6rem}
.meta{color:#6e6e73;font-size:.9rem}
nav.toc{background:#f5f5f7;border-radius:6px;padding:.5rem 1rem;margin:1rem 0}
nav.toc ol{margin:.25rem 0;padding-left:1.25rem}
.articles{list-style:none;padding:0}.articles li{margin:0 0 1.5rem}
.pager{display:flex;gap:1rem;justify-content:space-between}`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * Defence in depth behind the sanitizer: the pages carry no script of their own, so no script may run
 * at all (JSON-LD is a data block, not executed); styles only from the page's own <style>.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  // data: for the empty icon only (the sanitizer keeps data: URLs out of article images).
  'img-src http: https: data:',
  `style-src 'sha256-${STYLE_HASH}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface DocumentParts {
  title: string;
  /** Extra <head> markup, already escaped by the caller. */
  head?: string;
  /** The <main> content, already escaped by the caller. */
  body: string;
}

export function renderDocument(parts: DocumentParts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(parts.title)}</title>
<link rel="icon" href="data:,">
<link rel="alternate" type="application/rss+xml" title="Blog" href="/blog/rss.xml">
<style>${STYLE}</style>
${parts.head ?? ''}
</head>
<body>
<header><a href="/blog">Blog</a></header>
<main>
${parts.body}
</main>
</body>
</html>
`;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "2 March 2024", in UTC: by hand, as Intl's formatter costs more than the rest of a render. */
export function formatDate(date: Date): string {
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}
