import { z } from 'zod';
import type { ConsoleContext } from '../../services/console/context.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { AppError } from '../../src/errors.ts';
import type { ZodApp } from '../../src/http/routes.ts';
import { projectionReports } from '../../src/projection/status-admin.ts';
import {
  auditList,
  projectionActions,
  projectionStatus,
  projectionsTable,
  reportsOf,
} from './projections-page.ts';
import type { Html } from './ui/html.ts';
import { CONSOLE_CSP } from './ui/layout.ts';
import { workFragments } from './work-page.ts';

/** How often a page's live figures are sent. */
export const LIVE_PERIOD_MS = 1500;

interface Figures {
  /** `data-fragment` id -> its markup, rendered as the page renders it. */
  fragments: Record<string, string>;
  /** Lag chart series id -> a new point: [seconds since the epoch, events, seconds]. */
  lag?: Record<string, [number, number, number]>;
}

const text = (fragments: Record<string, Html>) =>
  Object.fromEntries(Object.entries(fragments).map(([id, markup]) => [id, markup.text]));

/**
 * GET /admin/live?page=...: Server-Sent Events with a page's live figures every LIVE_PERIOD_MS, as
 * fragments of markup the page swaps in (rendered by the same code as the page) and the points its lag
 * charts add. Closed when the browser goes and when the service shuts down.
 */
export function liveRoutes(app: ZodApp, deps: ServiceDeps, ctx: ConsoleContext): void {
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });

  async function figures(
    page: string,
    request: { operator?: import('../../src/auth/operators.ts').OperatorSession },
  ): Promise<Figures> {
    const now = Date.now() / 1000;
    if (page === 'projections') {
      const reports = await reportsOf(deps, ctx);
      const worst = reports.reduce(
        (w, r) => [Math.max(w[0], r.lag.events), Math.max(w[1], r.lag.seconds)] as [number, number],
        [0, 0] as [number, number],
      );
      return {
        fragments: text({ 'projections-table': projectionsTable(reports, ctx) }),
        lag: { 'lag-all': [now, worst[0], worst[1]] },
      };
    }
    if (page.startsWith('projection:')) {
      const name = page.slice('projection:'.length);
      const projection = ctx.projection(name);
      if (!projection) throw new AppError('not_found', `No projection ${name}.`);
      const [r] = await projectionReports(deps.store, deps.backgroundPool ?? deps.pool, [projection], {
        auditLimit: 10,
      });
      return {
        fragments: text({
          'projection-status': projectionStatus(r!, ctx),
          'projection-actions': projectionActions(r!, ctx, request.operator!),
          'projection-audit': auditList(r!),
        }),
        lag: { [`lag-${name}`]: [now, r!.lag.events, r!.lag.seconds] },
      };
    }
    if (page === 'work') return { fragments: text(await workFragments(deps)) };
    throw new AppError('not_found', `No live page ${page}.`);
  }

  app.get(
    '/admin/live',
    {
      config: { access: 'operator' },
      schema: { hide: true, querystring: z.object({ page: z.string().max(300) }) },
    },
    async (request, reply) => {
      const page = request.query.page;
      // Refused before the stream opens: an unknown page is a 404, not an empty stream.
      const first = await figures(page, request);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        'x-request-id': request.id,
        'content-security-policy': CONSOLE_CSP,
        'x-content-type-options': 'nosniff',
      });
      res.write(`retry: 3000\n\n`);
      const send = (data: Figures) => res.write(`event: figures\ndata: ${JSON.stringify(data)}\n\n`);
      send(first);
      let timer: NodeJS.Timeout | undefined;
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        streams.delete(end);
        res.end();
      };
      streams.add(end);
      request.raw.on('close', end);
      const tick = async () => {
        try {
          send(await figures(page, request));
        } catch (error) {
          request.log.warn({ err: error }, 'live figures skipped');
        }
        if (!ended) timer = setTimeout(tick, LIVE_PERIOD_MS);
      };
      timer = setTimeout(tick, LIVE_PERIOD_MS);
    },
  );
}
