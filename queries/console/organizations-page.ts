import { z } from 'zod';
import { MAX_GRANT } from '../../commands/accounts/grant-credits.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { organizationStream } from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';
import type { ZodApp } from '../../src/http/routes.ts';
import { eventsUrl, historyUrl } from './events-page.ts';
import { count, time } from './ui/format.ts';
import { html } from './ui/html.ts';
import { csrfField, renderPage } from './ui/layout.ts';

const orgPath = (id: string) => `/admin/organizations/${encodeURIComponent(id)}`;

/** Organizations with their balance, an organization's credit ledger, and the grant form. */
export function organizationsPageRoutes(app: ZodApp, deps: ServiceDeps): void {
  app.get(
    '/admin/organizations',
    {
      config: { access: 'operator' },
      schema: { hide: true, querystring: z.object({ q: z.string().max(200).optional() }) },
    },
    async (request, reply) => {
      const q = request.query.q?.trim() || undefined;
      const { rows } = await deps.pool.query<{
        organization_id: string;
        name: string;
        credit_balance: number;
        created_at: Date;
      }>(
        `SELECT organization_id, name, credit_balance, created_at FROM organizations
         WHERE $1::text IS NULL OR organization_id = $1 OR name ILIKE '%' || replace(replace(replace($1, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'
         ORDER BY created_at DESC LIMIT 100`,
        [q ?? null],
      );
      const body = html`<h1>Organizations</h1>
<form method="get" action="/admin/organizations" class="filters" role="search" aria-label="Find an organization">
<p><label for="o-q">Id or name</label><br><input id="o-q" name="q" value="${q ?? ''}"></p>
<p class="buttons"><button type="submit">Find</button></p></form>
<table class="grid"><caption>${rows.length === 100 ? 'The newest 100 organizations' : `${rows.length} organization${rows.length === 1 ? '' : 's'}`}${q ? ' matching' : ''}</caption>
<thead><tr><th scope="col">Organization</th><th scope="col">Name</th><th scope="col" class="num">Balance</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.map(
        (o) =>
          html`<tr><th scope="row"><a href="${orgPath(o.organization_id)}"><code>${o.organization_id}</code></a></th><td>${o.name}</td><td class="num">${count(o.credit_balance)}</td><td>${time(o.created_at)}</td></tr>`,
      )}</tbody></table>`;
      return reply
        .type('text/html; charset=utf-8')
        .send(
          renderPage({ title: 'Organizations', page: 'organizations', operator: request.operator, body }),
        );
    },
  );

  app.get(
    '/admin/organizations/:organizationId',
    {
      config: { access: 'operator' },
      schema: {
        hide: true,
        params: z.object({ organizationId: z.string().max(100) }),
        querystring: z.object({ done: z.string().max(40).optional() }),
      },
    },
    async (request, reply) => {
      const { organizationId } = request.params;
      const { rows } = await deps.pool.query<{ name: string; credit_balance: number; created_at: Date }>(
        'SELECT name, credit_balance, created_at FROM organizations WHERE organization_id = $1',
        [organizationId],
      );
      const org = rows[0];
      if (!org) throw new AppError('not_found', `No organization ${organizationId}.`);
      const { rows: ledger } = await deps.pool.query<{
        revision: string;
        kind: string;
        amount: number;
        balance_after: number;
        run_id: string | null;
        reason: string | null;
        at: Date;
      }>(
        `SELECT revision, kind, amount, balance_after, run_id, reason, at FROM credit_ledger
         WHERE organization_id = $1 ORDER BY revision DESC LIMIT 100`,
        [organizationId],
      );
      const stream = organizationStream.name(organizationId);
      const body = html`<p class="crumbs"><a href="/admin/organizations">Organizations</a> › ${org.name}</p>
<h1>${org.name}</h1>
<dl class="figures">
<div><dt>Organization</dt><dd><code>${organizationId}</code></dd></div>
<div><dt>Balance</dt><dd class="balance">${count(org.credit_balance)} credits</dd></div>
<div><dt>Created</dt><dd>${time(org.created_at)}</dd></div>
<div><dt>Stream</dt><dd><a href="${historyUrl(stream)}">${stream}</a> · <a href="${eventsUrl({ stream })}">its events</a></dd></div>
</dl>
<h2>Grant credits</h2>
<form method="post" action="${orgPath(organizationId)}/credits" class="grant">${csrfField(request.operator)}
<p><label for="g-amount">Amount (1 to ${count(MAX_GRANT)})</label><br><input id="g-amount" name="amount" inputmode="numeric" required size="10"></p>
<p><label for="g-reason">Reason (kept with the grant)</label><br><input id="g-reason" name="reason" required maxlength="500" size="50"></p>
<p class="buttons"><button type="submit">Grant</button></p>
<p class="meta">Recorded in the organization’s stream with you as the actor, as <code>stk admin credits grant</code> records it.</p>
</form>
<h2>Credit ledger</h2>
<table class="grid"><caption>${ledger.length === 100 ? 'The latest 100 movements' : `${ledger.length} movement${ledger.length === 1 ? '' : 's'}`}, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Balance after</th><th scope="col">Run or reason</th><th scope="col">Revision</th></tr></thead>
<tbody>${ledger.map(
        (l) =>
          html`<tr><td>${time(l.at)}</td><td>${l.kind}</td><td class="num">${count(l.amount)}</td><td class="num">${count(l.balance_after)}</td><td>${l.run_id ? html`<code>${l.run_id}</code>` : (l.reason ?? '-')}</td><td><a href="${historyUrl(stream, BigInt(l.revision))}">${l.revision}</a></td></tr>`,
      )}</tbody></table>`;
      return reply.type('text/html; charset=utf-8').send(
        renderPage({
          title: `Organization ${org.name}`,
          page: 'organizations',
          operator: request.operator,
          body,
          notice: request.query.done,
        }),
      );
    },
  );
}
