import { z } from 'zod';
import type { ConsoleContext } from '../../services/console/context.ts';
import { streamsOf } from '../../services/console/event-log.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { AppError } from '../../src/errors.ts';
import { NoReplayerError, type StateAt, stateAt, stateAtRevision } from '../../src/history/state-at.ts';
import type { ZodApp } from '../../src/http/routes.ts';
import { categoryOf } from '../../src/stream.ts';
import { historyUrl } from './events-page.ts';
import { type Change, diff, redact } from './redact.ts';
import { json, time } from './ui/format.ts';
import { type Html, html } from './ui/html.ts';
import { renderPage } from './ui/layout.ts';

const Query = z.object({
  category: z.string().max(100).optional(),
  stream: z.string().max(300).optional(),
  revision: z.string().max(20).optional(),
  at: z.string().max(40).optional(),
  from: z.string().max(20).optional(),
  to: z.string().max(20).optional(),
});

const blank = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

function revisionOf(value: string | undefined, name: string): bigint | undefined {
  const v = blank(value);
  if (v === undefined) return undefined;
  if (!/^\d{1,18}$/.test(v))
    throw new AppError('validation_failed', `Invalid ${name}`, {
      errors: [{ path: `querystring.${name}`, message: 'a revision: a whole number from 0' }],
    });
  return BigInt(v);
}

function instantOf(value: string | undefined): Date | undefined {
  const v = blank(value);
  if (v === undefined) return undefined;
  const at = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(at.getTime()))
    throw new AppError('validation_failed', 'Invalid at', {
      errors: [{ path: 'querystring.at', message: 'an ISO 8601 time such as 2026-03-01T12:00:00Z' }],
    });
  return at;
}

const show = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));

function diffTable(changes: readonly Change[], from: bigint, to: bigint): Html {
  if (changes.length === 0)
    return html`<p>Nothing changed between revisions ${String(from)} and ${String(to)}.</p>`;
  return html`<table class="grid diff"><caption>From revision ${String(from)} to ${String(to)}: ${changes.length} change${changes.length === 1 ? '' : 's'}</caption>
<thead><tr><th scope="col">Path</th><th scope="col">Change</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
<tbody>${changes.map(
    (c) =>
      html`<tr class="change-${c.kind.replace(' ', '-')}"><th scope="row"><code>${c.path || '(the whole state)'}</code></th><td>${c.kind === 'secret changed' ? html`<strong>secret changed</strong> (values never shown)` : c.kind}</td><td><code>${show(c.before)}</code></td><td><code>${show(c.after)}</code></td></tr>`,
  )}</tbody></table>`;
}

function stateHeading(result: StateAt, how: string): Html {
  if (result.revision === null) return html`<p>The stream had no events yet ${how}.</p>`;
  return html`<p>Revision <strong>${String(result.revision)}</strong> (recorded ${time(result.recordedAt)}): ${result.eventsReplayed} event(s) replayed, ${result.eventsAfter} later.</p>`;
}

/**
 * History and time travel: a stream's state at a revision or an instant, replayed with its stream
 * definition's own evolve and history view (src/history/, what `stk admin events at` computes), and
 * the differences between two revisions. Secret members show as hidden; a diff says that a secret
 * changed, never its values.
 */
export function historyPageRoutes(app: ZodApp, deps: ServiceDeps, ctx: ConsoleContext): void {
  app.get(
    '/admin/history',
    { config: { access: 'operator' }, schema: { hide: true, querystring: Query } },
    async (request, reply) => {
      const q = request.query;
      const registry = ctx.registry();
      const stream = blank(q.stream);
      const category = blank(q.category) ?? (stream ? categoryOf(stream) : undefined);
      const categories = registry.categories();
      const known = category ? await streamsOf(deps.store, deps.pool, category, 200) : [];
      const picker = html`<form method="get" action="/admin/history" class="filters" aria-label="Choose a stream">
<p><label for="h-category">Category</label><br><select id="h-category" name="category"><option value="">any</option>${categories.map(
        (c) =>
          html`<option value="${c}"${c === category ? html` selected` : ''}>${c}: ${registry.stream(c)?.history?.description ?? 'no history view'}</option>`,
      )}</select></p>
<p><label for="h-stream">Stream</label><br><input id="h-stream" name="stream" size="50" value="${stream ?? ''}" list="h-streams"></p>
<datalist id="h-streams">${known.map((s) => html`<option value="${s.stream}"></option>`)}</datalist>
<p><label for="h-revision">At revision</label><br><input id="h-revision" name="revision" inputmode="numeric" size="8" value="${q.revision ?? ''}"></p>
<p><label for="h-at">Or at an instant (UTC)</label><br><input id="h-at" name="at" type="datetime-local" step="1" value="${q.at ?? ''}"></p>
<p class="buttons"><button type="submit">Show</button></p>
</form>`;
      let body: Html;
      if (!stream) {
        body = html`<h1>History</h1>
${picker}
${
  category
    ? html`<h2>Streams of ${category}</h2>${
        known.length === 0
          ? html`<p>None listed.</p>`
          : html`<ul class="streams">${known.map((s) => html`<li><a href="${historyUrl(s.stream)}">${s.stream}</a> <span class="meta">(${String(s.revision + 1n)} events)</span></li>`)}</ul>`
      }`
    : html`<p>Choose a category and a stream: a column (<code>column-&lt;tableId&gt;.&lt;columnId&gt;</code>) or an article (<code>article-&lt;kind&gt;.&lt;slug&gt;</code>) first; every category with a stream definition replays.</p>`
}`;
      } else {
        const revision = revisionOf(q.revision, 'revision');
        const at = revision === undefined ? instantOf(q.at) : undefined;
        const from = revisionOf(q.from, 'from');
        const to = revisionOf(q.to, 'to');
        let result: StateAt;
        let how: string;
        try {
          if (revision !== undefined) {
            result = await stateAtRevision(deps.store, registry, stream, revision);
            how = `at revision ${revision}`;
          } else if (at) {
            result = await stateAt(deps.store, registry, stream, at);
            how = `at ${at.toISOString()}`;
          } else {
            result = await stateAt(deps.store, registry, stream, new Date(8.64e15));
            how = 'now';
          }
        } catch (error) {
          if (error instanceof NoReplayerError) throw new AppError('not_found', error.message);
          throw error;
        }
        const events = await deps.store.readStream(stream);
        if (events.length === 0) throw new AppError('not_found', `The stream ${stream} has no events.`);
        const last = events.at(-1)!.revision;
        // The diff: the two revisions asked for, else what the shown revision changed.
        const shown = result.revision;
        const [a, b] =
          from !== undefined && to !== undefined
            ? [from, to]
            : shown !== null && shown > 0n
              ? [shown - 1n, shown]
              : [undefined, undefined];
        let diffPart: Html = html``;
        if (a !== undefined && b !== undefined) {
          const [before, after] = await Promise.all([
            stateAtRevision(deps.store, registry, stream, a),
            stateAtRevision(deps.store, registry, stream, b),
          ]);
          diffPart = diffTable(diff(before.state, after.state), a, b);
        }
        body = html`<p class="crumbs"><a href="/admin/history">History</a> › ${category}</p>
<h1>${stream}</h1>
${picker}
<h2>State ${how}</h2>
${stateHeading(result, how)}
${json(redact(result.state))}
<h2>Differences</h2>
<form method="get" action="/admin/history" class="filters" aria-label="Compare two revisions">
<input type="hidden" name="stream" value="${stream}">
${revision !== undefined ? html`<input type="hidden" name="revision" value="${String(revision)}">` : ''}
<p><label for="d-from">From revision</label><br><input id="d-from" name="from" inputmode="numeric" size="8" value="${a !== undefined ? String(a) : '0'}"></p>
<p><label for="d-to">To revision</label><br><input id="d-to" name="to" inputmode="numeric" size="8" value="${b !== undefined ? String(b) : String(last)}"></p>
<p class="buttons"><button type="submit">Compare</button></p>
</form>
<div class="diff-result">${diffPart}</div>
<h2>Events of the stream</h2>
<table class="grid"><caption>${events.length} event${events.length === 1 ? '' : 's'}, oldest first</caption>
<thead><tr><th scope="col">Revision</th><th scope="col">Recorded</th><th scope="col">Type</th><th scope="col">Actor</th></tr></thead>
<tbody>${events.map(
          (e) =>
            html`<tr${e.revision === shown ? html` class="current"` : ''}><td><a href="${historyUrl(stream, e.revision)}"${e.revision === shown ? html` aria-current="true"` : ''}>${String(e.revision)}</a></td><td>${time(e.recordedAt)}</td><td><a href="/admin/events/${e.id}">${e.type}</a></td><td>${typeof e.metadata.actor === 'string' ? e.metadata.actor : '-'}</td></tr>`,
        )}</tbody></table>`;
      }
      return reply.type('text/html; charset=utf-8').send(
        renderPage({
          title: stream ? `History of ${stream}` : 'History',
          page: 'history',
          operator: request.operator,
          body,
        }),
      );
    },
  );
}
