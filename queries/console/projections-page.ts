import { z } from 'zod';
import type { ConsoleContext } from '../../services/console/context.ts';
import { lagSeries } from '../../services/console/lag-samples.ts';
import type { ConsoleRebuild } from '../../services/console/rebuilds.ts';
import type { OperatorSession } from '../../src/auth/operators.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { AppError } from '../../src/errors.ts';
import type { ZodApp } from '../../src/http/routes.ts';
import { type ProjectionReport, projectionReports } from '../../src/projection/status-admin.ts';
import { jsonForScript } from '../content/site/html.ts';
import { count, position, seconds, time } from './ui/format.ts';
import { type Html, html, trusted } from './ui/html.ts';
import { csrfField, renderPage } from './ui/layout.ts';

const STATE_LABEL: Record<ProjectionReport['state'], string> = {
  running: 'running',
  catching_up: 'catching up',
  rebuilding: 'rebuilding',
  failed: 'FAILED',
  not_started: 'not started',
};

const lagEvents = (lag: ProjectionReport['lag']) => `${lag.atLeast ? '≥' : ''}${count(lag.events)}`;

export const projectionPath = (name: string) => `/admin/projections/${encodeURIComponent(name)}`;

export async function reportsOf(deps: ServiceDeps, ctx: ConsoleContext, auditLimit = 0) {
  return projectionReports(deps.store, deps.backgroundPool ?? deps.pool, ctx.projections(), { auditLimit });
}

/** The rebuild's progress, from this process's run when it has one, else from the database. */
function rebuildProgress(report: ProjectionReport, run: ConsoleRebuild | undefined): Html {
  if (run && !run.finishedAt) {
    const total = run.total ?? 0;
    return html`<progress max="${Math.max(total, run.processed, 1)}" value="${run.processed}" aria-label="Rebuild of ${report.name}">${count(run.processed)}</progress>
<span>${run.phase} · ${count(run.processed)}${run.total !== undefined ? html` of ${count(run.total)}` : ''} events</span>`;
  }
  const rb = report.rebuild;
  if (rb) {
    const done = rb.eventsApplied;
    const total = done + rb.lag.events;
    return html`<progress max="${Math.max(total, 1)}" value="${done}" aria-label="Rebuild of ${report.name}">${count(done)}</progress>
<span>${rb.active ? 'building' : 'interrupted'} · ${count(done)} of ${count(total)} events</span>`;
  }
  if (run?.phase === 'swapped')
    return html`<span>swapped in at ${time(run.finishedAt)} (${count(run.processed)} events in ${(run.seconds ?? 0).toFixed(1)} s)</span>`;
  if (run?.phase === 'failed') return html`<span class="error">failed: ${run.error}</span>`;
  if (run?.phase === 'interrupted') return html`<span>interrupted (start it again to resume)</span>`;
  return html`-`;
}

/** The table of every projection: the overview's live fragment. */
export function projectionsTable(reports: readonly ProjectionReport[], ctx: ConsoleContext): Html {
  return html`<table class="grid">
<caption>Every projection of the service (${reports.length})</caption>
<thead><tr><th scope="col">Projection</th><th scope="col">Version</th><th scope="col">State</th><th scope="col">Checkpoint</th><th scope="col" class="num">Lag (events)</th><th scope="col" class="num">Lag</th><th scope="col">Runner</th><th scope="col">Rebuild</th><th scope="col">Last error</th></tr></thead>
<tbody>${reports.map(
    (r) => html`<tr data-projection="${r.name}">
<th scope="row"><a href="${projectionPath(r.name)}">${r.name}</a></th>
<td>${r.storedVersion === null || r.storedVersion === r.version ? String(r.version) : `${r.storedVersion}→${r.version}`}</td>
<td><span class="state state-${r.state}">${STATE_LABEL[r.state]}</span></td>
<td><code>${position(r.checkpoint)}</code></td>
<td class="num">${lagEvents(r.lag)}</td>
<td class="num">${seconds(r.lag.seconds)}</td>
<td>${r.runnerActive ? 'active' : 'none'}</td>
<td>${rebuildProgress(r, ctx.rebuilds.get(r.name))}</td>
<td>${r.lastError ? html`<span class="error">${r.lastError.slice(0, 80)}</span>` : '-'}</td>
</tr>`,
  )}</tbody>
</table>`;
}

/** One projection's figures: the detail page's live fragment. */
export function projectionStatus(r: ProjectionReport, ctx: ConsoleContext): Html {
  return html`<dl class="figures">
<div><dt>State</dt><dd><span class="state state-${r.state}">${STATE_LABEL[r.state]}</span></dd></div>
<div><dt>Version</dt><dd>${String(r.version)}${r.storedVersion !== null && r.storedVersion !== r.version ? ` (tables: ${r.storedVersion})` : ''}</dd></div>
<div><dt>Checkpoint</dt><dd><code>${position(r.checkpoint)}</code></dd></div>
<div><dt>Head</dt><dd><code>${position(r.head)}</code></dd></div>
<div><dt>Lag (events)</dt><dd>${lagEvents(r.lag)}</dd></div>
<div><dt>Lag</dt><dd>${seconds(r.lag.seconds)}</dd></div>
<div><dt>Events applied</dt><dd>${count(r.eventsApplied)}</dd></div>
<div><dt>Runner</dt><dd>${r.runnerActive ? 'active' : 'none'}</dd></div>
<div><dt>Rebuild</dt><dd class="rebuild">${rebuildProgress(r, ctx.rebuilds.get(r.name))}</dd></div>
</dl>`;
}

/** The actions that fit the projection's state: rebuild (or abandon one), retry or skip a poison event. */
export function projectionActions(r: ProjectionReport, ctx: ConsoleContext, operator: OperatorSession): Html {
  const projection = ctx.projection(r.name);
  const run = ctx.rebuilds.get(r.name);
  const busy = (run && !run.finishedAt) || r.rebuild?.active;
  const base = projectionPath(r.name);
  const rebuild = projection?.notRebuildable
    ? html`<p>Not rebuildable: ${projection.notRebuildable}</p>`
    : busy
      ? html`<p>A rebuild is under way.</p>`
      : html`<form method="post" action="${base}/rebuild">${csrfField(operator)}
<button type="submit">${r.rebuild ? 'Resume the rebuild' : 'Rebuild (blue/green)'}</button></form>`;
  const abandon =
    r.rebuild && !busy
      ? html`<form method="post" action="${base}/abandon-rebuild" data-confirm="Drop the interrupted rebuild of ${r.name}?">${csrfField(operator)}
<button type="submit">Abandon the interrupted rebuild</button></form>`
      : '';
  const failure = r.failedEventId
    ? html`<section class="poison" aria-labelledby="poison-${r.name}">
<h3 id="poison-${r.name}">Stopped at a poison event</h3>
<p>Event <a href="/admin/events/${r.failedEventId}"><code>${r.failedEventId}</code></a></p>
<pre class="error">${r.lastError ?? ''}</pre>
<div class="actions">
<form method="post" action="${base}/retry">${csrfField(operator)}<button type="submit">Retry the event</button></form>
<form method="post" action="${base}/skip" data-confirm="Skip event ${r.failedEventId} without applying it?">${csrfField(operator)}
<input type="hidden" name="eventId" value="${r.failedEventId}"><button type="submit">Skip the event</button></form>
</div></section>`
    : '';
  return html`<div class="actions">${rebuild}${abandon}</div>${failure}`;
}

function auditList(r: ProjectionReport): Html {
  if (r.audit.length === 0) return html`<p>No operator action recorded yet.</p>`;
  return html`<table class="grid"><caption>Latest operator actions</caption>
<thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Actor</th><th scope="col">Event</th></tr></thead>
<tbody>${r.audit.map(
    (a) =>
      html`<tr><td>${time(a.at)}</td><td>${a.action}</td><td>${a.actor}</td><td>${a.eventId ? html`<code>${a.eventId}</code>` : '-'}</td></tr>`,
  )}</tbody></table>`;
}

/** A lag chart's data block (not a script: the page's policy runs none inline) and its container. */
function lagChart(
  id: string,
  label: string,
  series: { at: number[]; events: number[]; seconds: number[] },
): Html {
  return html`<figure class="chart-figure">
<div class="chart" data-chart="lag" data-source="${id}-data" data-series="${id}" role="img" aria-label="${label}"></div>
<figcaption>${label}: events behind (left axis) and age of the oldest waiting event in seconds (right axis), sampled every 10 s.</figcaption>
</figure>
<script type="application/json" id="${id}-data">${trusted(jsonForScript([series.at, series.events, series.seconds]))}</script>`;
}

export function projectionsPageRoutes(app: ZodApp, deps: ServiceDeps, ctx: ConsoleContext): void {
  const query = z.object({ done: z.string().max(40).optional() });

  app.get(
    '/admin/projections',
    { config: { access: 'operator' }, schema: { hide: true, querystring: query } },
    async (request, reply) => {
      const reports = await reportsOf(deps, ctx);
      const samples = await lagSeries(deps.backgroundPool ?? deps.pool);
      // The overview's curve: the worst lag of any projection at each sample.
      const worst = new Map<number, [number, number]>();
      for (const s of samples.values())
        s.at.forEach((t, i) => {
          const [e, sec] = worst.get(t) ?? [0, 0];
          worst.set(t, [Math.max(e, s.events[i]!), Math.max(sec, s.seconds[i]!)]);
        });
      const times = [...worst.keys()].sort((a, b) => a - b);
      const body = html`<h1>Projections</h1>
${lagChart('lag-all', 'Worst lag of any projection over the last hour', {
  at: times,
  events: times.map((t) => worst.get(t)![0]),
  seconds: times.map((t) => worst.get(t)![1]),
})}
<div data-fragment="projections-table">${projectionsTable(reports, ctx)}</div>`;
      return reply.type('text/html; charset=utf-8').send(
        renderPage({
          title: 'Projections',
          page: 'projections',
          operator: request.operator,
          body,
          notice: request.query.done,
          live: 'projections',
        }),
      );
    },
  );

  app.get(
    '/admin/projections/:name',
    {
      config: { access: 'operator' },
      schema: { hide: true, params: z.object({ name: z.string().max(200) }), querystring: query },
    },
    async (request, reply) => {
      const { name } = request.params;
      const projection = ctx.projection(name);
      if (!projection) throw new AppError('not_found', `No projection ${name}.`);
      const pool = deps.backgroundPool ?? deps.pool;
      const [report] = await projectionReports(deps.store, pool, [projection], { auditLimit: 10 });
      const series = (await lagSeries(pool, name)).get(name) ?? { at: [], events: [], seconds: [] };
      const operator = request.operator!;
      const body = html`<p class="crumbs"><a href="/admin/projections">Projections</a> › ${name}</p>
<h1>Projection ${name}</h1>
<p class="meta">Handles: ${projection.handles.join(', ')}</p>
<div data-fragment="projection-status">${projectionStatus(report!, ctx)}</div>
${lagChart(`lag-${name}`, `Lag of ${name} over the last hour`, series)}
<h2>Rebuild and repair</h2>
<div data-fragment="projection-actions">${projectionActions(report!, ctx, operator)}</div>
<h2>Audit</h2>
<div data-fragment="projection-audit">${auditList(report!)}</div>`;
      return reply.type('text/html; charset=utf-8').send(
        renderPage({
          title: `Projection ${name}`,
          page: 'projections',
          operator,
          body,
          notice: request.query.done,
          live: `projection:${name}`,
        }),
      );
    },
  );
}

export { auditList };
