import { z } from 'zod';
import type { ConsoleContext } from '../../services/console/context.ts';
import {
  type EventFilter,
  type LoggedEvent,
  readEventLog,
  readLoggedEvent,
} from '../../services/console/event-log.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { AppError } from '../../src/errors.ts';
import type { Position } from '../../src/event-store/port.ts';
import type { ZodApp } from '../../src/http/routes.ts';
import { categoryOf } from '../../src/stream.ts';
import { redact } from './redact.ts';
import { json, time } from './ui/format.ts';
import { type Html, html } from './ui/html.ts';
import { renderPage } from './ui/layout.ts';

const PAGE_SIZE = 50;

const Filters = z.object({
  stream: z.string().max(300).optional(),
  category: z.string().max(100).optional(),
  type: z.string().max(200).optional(),
  correlationId: z.string().max(300).optional(),
  from: z.string().max(40).optional(),
  to: z.string().max(40).optional(),
  before: z.string().max(60).optional(),
});
type Filters = z.infer<typeof Filters>;

const blank = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** `2026-03-01T12:00` (a datetime-local field, read as UTC) or any ISO time. */
function instant(value: string | undefined, name: string): Date | undefined {
  const v = blank(value);
  if (!v) return undefined;
  const at = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(at.getTime()))
    throw new AppError('validation_failed', `Invalid filter: ${name}`, {
      errors: [{ path: `querystring.${name}`, message: 'an ISO 8601 time such as 2026-03-01T12:00:00Z' }],
    });
  return at;
}

const cursorOf = (p: Position) => `${p.commit}.${p.prepare}`;
function parseCursor(value: string | undefined): Position | undefined {
  const v = blank(value);
  if (!v) return undefined;
  const m = /^(\d{1,20})\.(\d{1,20})$/.exec(v);
  if (!m)
    throw new AppError('validation_failed', 'Invalid cursor', {
      errors: [{ path: 'querystring.before', message: 'a cursor this page made' }],
    });
  return { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) };
}

export const eventsUrl = (filters: Partial<Filters>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `/admin/events?${s}` : '/admin/events';
};

export const historyUrl = (stream: string, revision?: bigint) =>
  `/admin/history?stream=${encodeURIComponent(stream)}${revision !== undefined ? `&revision=${revision}` : ''}`;

const correlationOf = (e: LoggedEvent) =>
  typeof e.metadata.correlationId === 'string' ? e.metadata.correlationId : undefined;

function eventRows(events: readonly LoggedEvent[]): Html {
  return html`${events.map((e) => {
    const correlation = correlationOf(e);
    return html`<tr>
<td>${time(e.recordedAt)}</td>
<td><a href="${historyUrl(e.stream, e.revision)}">${e.stream}</a> <span class="meta">#${String(e.revision)}</span></td>
<td><a href="/admin/events/${e.id}">${e.type}</a></td>
<td>${correlation ? html`<a href="${eventsUrl({ correlationId: correlation })}"><code>${correlation}</code></a>` : '-'}</td>
<td>${typeof e.metadata.actor === 'string' ? e.metadata.actor : '-'}</td>
</tr>`;
  })}`;
}

export function eventsPageRoutes(app: ZodApp, deps: ServiceDeps, ctx: ConsoleContext): void {
  app.get(
    '/admin/events',
    { config: { access: 'operator' }, schema: { hide: true, querystring: Filters } },
    async (request, reply) => {
      const q = request.query;
      const filter: EventFilter = {
        stream: blank(q.stream),
        category: blank(q.category),
        type: blank(q.type),
        correlationId: blank(q.correlationId),
        from: instant(q.from, 'from'),
        to: instant(q.to, 'to'),
        before: parseCursor(q.before),
        limit: PAGE_SIZE,
      };
      const page = await readEventLog(deps.store, deps.pool, filter);
      const registry = ctx.registry();
      const categories = registry.categories();
      const types = [
        ...new Set(categories.flatMap((c) => Object.keys(registry.stream(c)?.events ?? {}))),
      ].sort();
      const kept = { ...q, before: undefined };
      const field = (name: keyof Filters, label: string, extra: Html = html``) =>
        html`<p><label for="f-${name}">${label}</label><br><input id="f-${name}" name="${name}" value="${q[name] ?? ''}"${extra}></p>`;
      const summary = filter.correlationId
        ? html`<p class="meta">Every event request <code>${filter.correlationId}</code> caused, across streams, newest first.</p>`
        : html`<p class="meta">The log (<code>$all</code>), newest first.</p>`;
      const body = html`<h1>Event log</h1>
<form method="get" action="/admin/events" class="filters" role="search" aria-label="Filter the event log">
${field('stream', 'Stream')}
<p><label for="f-category">Category</label><br><select id="f-category" name="category"><option value="">any</option>${categories.map(
        (c) => html`<option${c === filter.category ? html` selected` : ''}>${c}</option>`,
      )}</select></p>
${field('type', 'Event type', html` list="event-types"`)}
<datalist id="event-types">${types.map((t) => html`<option value="${t}"></option>`)}</datalist>
${field('correlationId', 'Correlation id')}
${field('from', 'From (UTC)', html` type="datetime-local" step="1"`)}
${field('to', 'To (UTC)', html` type="datetime-local" step="1"`)}
<p class="buttons"><button type="submit">Filter</button> <a href="/admin/events">Clear</a></p>
</form>
${summary}
${page.scanned ? html`<p class="meta">This store has no filtered backwards read: the newest ${page.scanned} events were searched.</p>` : ''}
<table class="grid events">
<caption>${page.events.length} event${page.events.length === 1 ? '' : 's'}${filter.before ? ' (older page)' : ''}</caption>
<thead><tr><th scope="col">Recorded</th><th scope="col">Stream and revision</th><th scope="col">Type</th><th scope="col">Correlation id</th><th scope="col">Actor</th></tr></thead>
<tbody>${eventRows(page.events)}</tbody>
</table>
<nav class="pager" aria-label="Pages">${filter.before ? html`<a href="${eventsUrl(kept)}">Newest</a>` : ''}
${page.next ? html`<a href="${eventsUrl({ ...kept, before: cursorOf(page.next) })}" rel="next">Older events</a>` : ''}</nav>`;
      return reply
        .type('text/html; charset=utf-8')
        .send(renderPage({ title: 'Event log', page: 'events', operator: request.operator, body }));
    },
  );

  app.get(
    '/admin/events/:eventId',
    {
      config: { access: 'operator' },
      schema: { hide: true, params: z.object({ eventId: z.string().max(100) }) },
    },
    async (request, reply) => {
      const event = await readLoggedEvent(deps.store, deps.pool, request.params.eventId);
      if (!event) throw new AppError('not_found', `No event ${request.params.eventId}.`);
      const correlation = correlationOf(event);
      const causation =
        typeof event.metadata.causationId === 'string' ? event.metadata.causationId : undefined;
      const body = html`<p class="crumbs"><a href="/admin/events">Event log</a> › ${event.type}</p>
<h1>${event.type}</h1>
<dl class="figures">
<div><dt>Event id</dt><dd><code>${event.id}</code></dd></div>
<div><dt>Stream</dt><dd><a href="${eventsUrl({ stream: event.stream })}">${event.stream}</a> (category <a href="${eventsUrl({ category: categoryOf(event.stream) })}">${categoryOf(event.stream)}</a>)</dd></div>
<div><dt>Revision</dt><dd><a href="${historyUrl(event.stream, event.revision)}">${String(event.revision)}: the stream's state after it</a></dd></div>
<div><dt>Position</dt><dd><code>${String(event.position.commit)}/${String(event.position.prepare)}</code></dd></div>
<div><dt>Recorded</dt><dd>${time(event.recordedAt)}</dd></div>
<div><dt>Correlation id</dt><dd>${correlation ? html`<a href="${eventsUrl({ correlationId: correlation })}">${correlation}: every event of that request</a>` : '-'}</dd></div>
${causation ? html`<div><dt>Caused by</dt><dd><a href="/admin/events/${causation}"><code>${causation}</code></a></dd></div>` : ''}
</dl>
<h2>Data</h2>
${json(redact(event.data))}
<h2>Metadata</h2>
${json(redact(event.metadata))}`;
      return reply
        .type('text/html; charset=utf-8')
        .send(renderPage({ title: `Event ${event.type}`, page: 'events', operator: request.operator, body }));
    },
  );
}
