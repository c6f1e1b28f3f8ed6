import type { OperatorSession } from '../../../src/auth/operators.ts';
import { type Html, html } from './html.ts';

/**
 * The console's pages carry no inline script or style: scripts, styles and the chart library are files
 * served under /admin/assets, so the policy allows nothing but this origin's files, and the live
 * figures' EventSource to this origin.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGES = [
  { path: '/admin/projections', label: 'Projections', key: 'projections' },
  { path: '/admin/events', label: 'Event log', key: 'events' },
  { path: '/admin/history', label: 'History', key: 'history' },
  { path: '/admin/work', label: 'Work', key: 'work' },
  { path: '/admin/organizations', label: 'Organizations', key: 'organizations' },
] as const;

export type PageKey = (typeof PAGES)[number]['key'] | 'sign-in' | 'error';

/** Fixed messages a redirect after a form may name (`?done=<code>`): a URL cannot put words on a page. */
export const NOTICES: Record<string, string> = {
  'rebuild-started': 'Rebuild started: its progress shows below and the swap happens once it has caught up.',
  'rebuild-abandoned': 'Rebuild abandoned: its shadow tables are dropped; the live tables are untouched.',
  retried: 'Retry recorded: the runner applies the event again within a second.',
  skipped: 'Event skipped: the runner goes on with the next one.',
  granted: 'Credits granted and recorded in the organization’s stream.',
  'signed-out': 'Signed out.',
};

export interface PageParts {
  title: string;
  page: PageKey;
  operator?: OperatorSession;
  body: Html;
  /** `?done=` of a redirect after a form. */
  notice?: string;
  /** What the page's script should follow live (`/admin/live?page=...`). */
  live?: string;
}

export function csrfField(operator: OperatorSession | undefined): Html {
  return operator ? html`<input type="hidden" name="_csrf" value="${operator.csrfToken}">` : html``;
}

export function renderPage(parts: PageParts): string {
  const { operator } = parts;
  const nav = operator
    ? html`<nav aria-label="Console">
<ul>${PAGES.map(
        (p) =>
          html`<li><a href="${p.path}"${p.key === parts.page ? html` aria-current="page"` : ''}>${p.label}</a></li>`,
      )}</ul>
<form method="post" action="/admin/sign-out" class="sign-out">${csrfField(operator)}<span>${operator.name}</span> <button type="submit">Sign out</button></form>
</nav>`
    : html``;
  const notice = parts.notice && NOTICES[parts.notice];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} · stk console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/admin/assets/uPlot.min.css">
<link rel="stylesheet" href="/admin/assets/console.css">
<script src="/admin/assets/uPlot.iife.min.js" defer></script>
<script src="/admin/assets/console.js" defer></script>
</head>
<body${parts.live ? html` data-live="${parts.live}"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header><a class="brand" href="/admin">stk console</a>
${nav}</header>
<main id="main">
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${parts.body}
</main>
</body>
</html>
`.text;
}
