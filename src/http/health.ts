import { z } from 'zod';
import type { AppDeps, ZodApp } from './app.ts';

const check = z.object({ ok: z.boolean(), detail: z.string().optional() });

async function probe(fn: () => Promise<unknown>): Promise<z.infer<typeof check>> {
  try {
    await fn();
    return { ok: true };
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : 'unreachable' };
  }
}

/** Liveness (the process answers) and readiness (its database, event store and projections work). */
export function registerHealthRoutes(app: ZodApp, deps: AppDeps): void {
  app.get(
    '/healthz',
    {
      config: { access: 'public' },
      schema: { tags: ['health'], response: { 200: z.object({ status: z.literal('ok') }) } },
    },
    async () => ({ status: 'ok' as const }),
  );

  const readiness = z.object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({ database: check, eventStore: check, projections: check }),
  });
  app.get(
    '/readyz',
    {
      config: { access: 'public' },
      schema: { tags: ['health'], response: { 200: readiness, 503: readiness } },
    },
    async (_request, reply) => {
      const [database, eventStore] = await Promise.all([
        probe(() => deps.pool.query('SELECT 1')),
        probe(() => deps.store.ping()),
      ]);
      const failed = [...deps.projections.runners.values()]
        .filter((r) => r.currentState === 'failed')
        .map((r) => r.projection.name);
      const projections = failed.length
        ? { ok: false, detail: `failed: ${failed.join(', ')}` }
        : { ok: true };
      const ready = database.ok && eventStore.ok && projections.ok;
      return reply
        .code(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not_ready', checks: { database, eventStore, projections } });
    },
  );
}
