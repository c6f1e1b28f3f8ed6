import {
  failedItems,
  poolFigures,
  queueFigures,
  recentDeliveryFailures,
  runsInFlight,
  subscriptionHealth,
} from '../../services/console/work-figures.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { ZodApp } from '../../src/http/routes.ts';
import { count, time } from './ui/format.ts';
import { type Html, html } from './ui/html.ts';
import { renderPage } from './ui/layout.ts';

/** A webhook URL without what may be a credential in it (user info, query). */
function endpointOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return '-';
  }
}

export async function queuesFragment(deps: ServiceDeps): Promise<Html> {
  const queues = await queueFigures(deps.pool);
  if (queues.length === 0) return html`<p>No work item of any kind yet.</p>`;
  return html`<table class="grid"><caption>Work items by kind</caption>
<thead><tr><th scope="col">Kind</th><th scope="col" class="num">Pending</th><th scope="col" class="num">Leased</th><th scope="col" class="num">Retrying</th><th scope="col" class="num">Failed</th><th scope="col" class="num">Done (1 h)</th><th scope="col">Oldest pending since</th></tr></thead>
<tbody>${queues.map(
    (q) =>
      html`<tr><th scope="row">${q.kind}</th><td class="num">${count(q.pending)}</td><td class="num">${count(q.leased)}</td><td class="num">${count(q.retrying)}</td><td class="num${q.failed > 0 ? ' bad' : ''}">${count(q.failed)}</td><td class="num">${count(q.doneLastHour)}</td><td>${time(q.oldestPendingAt)}</td></tr>`,
  )}</tbody></table>`;
}

export async function runsFragment(deps: ServiceDeps): Promise<Html> {
  const runs = await runsInFlight(deps.pool);
  if (runs.length === 0) return html`<p>No column run in flight.</p>`;
  return html`<table class="grid"><caption>Column runs in flight</caption>
<thead><tr><th scope="col">Run</th><th scope="col">Organization</th><th scope="col">Column</th><th scope="col">Status</th><th scope="col">Progress</th><th scope="col">Started</th></tr></thead>
<tbody>${runs.map(
    (r) =>
      html`<tr><th scope="row"><code>${r.id}</code></th><td><a href="/admin/organizations/${encodeURIComponent(r.organizationId)}">${r.organizationId}</a></td><td><a href="/admin/history?stream=${encodeURIComponent(`column-${r.tableId}.${r.columnId}`)}">${r.tableId}.${r.columnId}</a></td><td>${r.status}</td>
<td><progress max="${Math.max(r.total, 1)}" value="${r.settled}" aria-label="Run ${r.id}">${r.settled}</progress> ${count(r.settled)} of ${count(r.total)} rows (${count(r.running)} running, ${count(r.failed)} failed)</td><td>${time(r.createdAt)}</td></tr>`,
  )}</tbody></table>`;
}

export async function webhooksFragment(deps: ServiceDeps): Promise<Html> {
  const [subscriptions, failures] = await Promise.all([
    subscriptionHealth(deps.pool),
    recentDeliveryFailures(deps.pool),
  ]);
  const health =
    subscriptions.length === 0
      ? html`<p>No webhook subscription.</p>`
      : html`<table class="grid"><caption>Webhook subscriptions, failing first</caption>
<thead><tr><th scope="col">Subscription</th><th scope="col">Organization</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col" class="num">Failures in a row</th><th scope="col">Failing since</th><th scope="col">Last success</th></tr></thead>
<tbody>${subscriptions.map(
          (s) =>
            html`<tr><th scope="row"><code>${s.id}</code></th><td>${s.organizationId}</td><td><code>${endpointOf(s.url)}</code></td><td>${s.status}</td><td class="num${s.consecutiveFailures > 0 ? ' bad' : ''}">${count(s.consecutiveFailures)}</td><td>${time(s.failingSince)}</td><td>${time(s.lastSuccessAt)}</td></tr>`,
        )}</tbody></table>`;
  const recent =
    failures.length === 0
      ? html`<p>No failed delivery attempt.</p>`
      : html`<table class="grid"><caption>Recent failed delivery attempts</caption>
<thead><tr><th scope="col">When</th><th scope="col">Subscription</th><th scope="col">Event type</th><th scope="col" class="num">Attempt</th><th scope="col">Status</th><th scope="col">Answer</th></tr></thead>
<tbody>${failures.map(
          (f) =>
            html`<tr><td>${time(f.at)}</td><td><code>${f.subscription_id}</code></td><td>${f.event_type}</td><td class="num">${f.attempt}</td><td>${f.status_code ?? f.outcome}</td><td><code>${f.response}</code></td></tr>`,
        )}</tbody></table>`;
  return html`${health}${recent}`;
}

export async function poolsFragment(deps: ServiceDeps): Promise<Html> {
  const pools = poolFigures([
    { name: 'requests', pool: deps.pool },
    { name: 'background', pool: deps.backgroundPool },
  ]);
  const dead = await failedItems(deps.pool);
  return html`<table class="grid"><caption>Database connections of this process</caption>
<thead><tr><th scope="col">Pool</th><th scope="col">In use</th><th scope="col" class="num">Open</th><th scope="col" class="num">Idle</th><th scope="col" class="num">Waiting</th></tr></thead>
<tbody>${pools.map(
    (p) =>
      html`<tr><th scope="row">${p.name}</th><td><meter min="0" max="${p.max}" value="${p.total - p.idle}" aria-label="Connections of ${p.name} in use">${p.total - p.idle}</meter> ${p.total - p.idle} of ${p.max}</td><td class="num">${p.total}</td><td class="num">${p.idle}</td><td class="num${p.waiting > 0 ? ' bad' : ''}">${p.waiting}</td></tr>`,
  )}</tbody></table>
${
  dead.length === 0
    ? ''
    : html`<table class="grid"><caption>Latest failed work items</caption>
<thead><tr><th scope="col">Item</th><th scope="col">Kind</th><th scope="col" class="num">Attempts</th><th scope="col">Error</th><th scope="col">When</th></tr></thead>
<tbody>${dead.map((d) => html`<tr><th scope="row"><code>${d.id}</code></th><td>${d.kind}</td><td class="num">${d.attempts}</td><td><code>${(d.last_error ?? '').slice(0, 200)}</code></td><td>${time(d.updated_at)}</td></tr>`)}</tbody></table>`
}`;
}

export async function workFragments(deps: ServiceDeps): Promise<Record<string, Html>> {
  const [queues, runs, webhooks, pools] = await Promise.all([
    queuesFragment(deps),
    runsFragment(deps),
    webhooksFragment(deps),
    poolsFragment(deps),
  ]);
  return { 'work-queues': queues, 'work-runs': runs, 'work-webhooks': webhooks, 'work-pools': pools };
}

export function workPageRoutes(app: ZodApp, deps: ServiceDeps): void {
  app.get(
    '/admin/work',
    { config: { access: 'operator' }, schema: { hide: true } },
    async (request, reply) => {
      const f = await workFragments(deps);
      const body = html`<h1>Work</h1>
<h2>Queues</h2><div data-fragment="work-queues">${f['work-queues']}</div>
<h2>Column runs in flight</h2><div data-fragment="work-runs">${f['work-runs']}</div>
<h2>Webhook deliveries</h2><div data-fragment="work-webhooks">${f['work-webhooks']}</div>
<h2>Database</h2><div data-fragment="work-pools">${f['work-pools']}</div>`;
      return reply
        .type('text/html; charset=utf-8')
        .send(renderPage({ title: 'Work', page: 'work', operator: request.operator, body, live: 'work' }));
    },
  );
}
