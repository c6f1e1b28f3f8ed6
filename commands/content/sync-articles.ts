import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { siteContentProjection } from '../../projections/content/site-content.ts';
import { pageKey } from '../../queries/content/site/page-cache.ts';
import { runFullSync, withFullSyncLock } from '../../services/content/sync-full.ts';
import type { SyncContext } from '../../services/content/sync-item.ts';
import { runNamedSync } from '../../services/content/sync-named.ts';
import { probeResponseSchema, SyncReport, syncResponseSchema } from '../../services/content/sync-report.ts';
import { parseNamedSync } from '../../services/content/sync-request.ts';
import { type ContentApiClient, contentApiFromConfig } from '../../src/content-api/client.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { SLUG_SHAPES } from '../../src/domain/content/sync-shapes.ts';
import { AppError } from '../../src/errors.ts';
import { noKeyOr } from '../../src/http/openapi.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { cronBearerCheck, rateLimited } from './cron-bearer.ts';

/** How long a response waits for site_content to show what it stored. */
const NAMED_WAIT_MS = 10_000;
const FULL_WAIT_MS = 120_000;

/** A full sync asked for with a bearer: the bearer check, not the public limit, answers for it. */
const isBearerAttempt = (request: FastifyRequest) =>
  request.body === undefined && request.headers.authorization !== undefined;

export interface SyncRouteOptions {
  /** Tests hand in a client with short timeouts; the service builds one from its configuration. */
  client?: ContentApiClient;
  /** Pages a full sync reads at most (default 1,000). */
  maxPages?: number;
}

const syncSchema = {
  tags: ['content sync'],
  // No API key: a probe takes none, a full sync the cron bearer (src/http/openapi.ts, cronSecret).
  security: noKeyOr('cronSecret'),
  response: { 200: z.union([probeResponseSchema, syncResponseSchema]), 502: syncResponseSchema },
};

/**
 * {site}/api/<provider>/sync (contract 4.1): a probe without credentials, a full sync with the cron
 * bearer, a named sync for a POST body naming slugs.
 */
export function syncRoutes(options: SyncRouteOptions = {}): RouteModule {
  return async (app, deps) => {
    const client = options.client ?? contentApiFromConfig(deps.config);
    const path = `/api/${deps.config.CONTENT_PROVIDER}/sync`;
    // Its own plugin scope: the body parser and the rate limiter below apply to this endpoint only.
    await app.register(async (scope) => {
      // An empty or whitespace body is a probe, and a publish notification may come without the
      // JSON content type: read every body as text and decide here.
      scope.removeAllContentTypeParsers();
      // The body limit is the app's (1 MiB), as for every route.
      scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
        const text = String(body);
        if (text.trim() === '') return done(null, undefined);
        try {
          done(null, JSON.parse(text));
        } catch {
          done(
            new AppError(
              'malformed_json',
              'The body is not JSON: send no body to probe, or JSON naming slugs.',
            ),
            undefined,
          );
        }
      });
      if (!scope.hasDecorator('rateLimit')) await scope.register(rateLimit, { global: false });
      const checkBearer = cronBearerCheck(scope, deps.config.CRON_SECRET);
      const api = scope.withTypeProvider<ZodTypeProvider>();
      const handler = (request: FastifyRequest, reply: FastifyReply) =>
        handleSync(deps, client, options, checkBearer, request, reply);
      api.get(
        path,
        {
          config: { access: 'public' },
          schema: {
            ...syncSchema,
            operationId: 'syncContent',
            summary: 'Probe, or full sync with Authorization: Bearer <CRON_SECRET>',
          },
        },
        handler,
      );
      api.post(
        path,
        {
          config: {
            access: 'public',
            // CMS webhooks (Sanity's among them) send Idempotency-Key: honoured, under one scope for
            // every caller, the bearer part of the request (src/http/idempotency.ts).
            idempotency: { shared: true },
            rateLimit: {
              max: deps.config.SYNC_RATE_LIMIT,
              timeWindow: 60_000,
              // Once the body is read: only then is it known whether a bearer is asked for at all.
              hook: 'preHandler',
              // A full sync asked for with a bearer (right or wrong) is the bearer check's to limit.
              // Exempting the right bearer only would let anyone over this limit tell a right guess (200)
              // from a wrong one (429) without a single failure being counted.
              allowList: isBearerAttempt,
              errorResponseBuilder: (_request, context) => rateLimited('sync requests', context.ttl),
            },
          },
          schema: {
            ...syncSchema,
            operationId: 'syncContentSlugs',
            summary: 'Named sync of the slugs in a JSON body; an empty body acts as GET',
            description:
              'Body: {"items":[{"slug":"...","kind":"blog"}]} or a publish notification naming slugs in ' +
              `${SLUG_SHAPES.map((shape) => shape.path).join(', ')} (at the top level, under data or under ` +
              'payload). Kinds other than blog and CONTENT_KINDS are per-item errors.',
          },
        },
        handler,
      );
    });
  };
}

async function handleSync(
  deps: ServiceDeps,
  client: ContentApiClient | undefined,
  options: SyncRouteOptions,
  checkBearer: (request: FastifyRequest) => Promise<void>,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const body = request.body;
  if (request.method === 'POST' && body !== undefined) {
    const named = parseNamedSync(body, deps.config.CONTENT_KINDS);
    const ctx = syncContext(deps, requireClient(client), request, 'named');
    await runNamedSync(ctx, named);
    await waitForRows(deps, request, ctx.report, NAMED_WAIT_MS);
    return reply.send(ctx.report.toResponse());
  }
  if (request.headers.authorization === undefined) return reply.send({ ok: true as const });
  await checkBearer(request);
  const ctx = syncContext(deps, requireClient(client), request, 'full');
  const outcome = await withFullSyncLock(deps.pool, async () => {
    const result = await runFullSync(ctx, 'blog', { maxPages: options.maxPages });
    await waitForRows(deps, request, ctx.report, FULL_WAIT_MS);
    return result;
  });
  request.log.info(
    { synced: ctx.report.storedCount, firstPageFailed: outcome.firstPageFailed },
    'full content sync finished',
  );
  return reply.code(outcome.firstPageFailed ? 502 : 200).send(ctx.report.toResponse());
}

function requireClient(client: ContentApiClient | undefined): ContentApiClient {
  if (!client) throw new AppError('unavailable', 'The content API is not configured (CONTENT_API_URL).');
  return client;
}

function syncContext(
  deps: ServiceDeps,
  client: ContentApiClient,
  request: FastifyRequest,
  source: 'full' | 'named',
): SyncContext {
  return {
    client,
    write: deps.parts.articleWriter,
    clock: deps.clock,
    metadata: { correlationId: request.id, actor: source === 'full' ? 'system:cron' : 'system:sync' },
    source,
    report: new SyncReport(source),
    logger: request.log,
  };
}

/** Read-your-writes: answer once the public pages show what was stored (or log that they lag). */
async function waitForRows(
  deps: ServiceDeps,
  request: FastifyRequest,
  report: SyncReport,
  timeoutMs: number,
) {
  if (!report.lastPosition) return;
  try {
    await deps.projections.waitFor(report.lastPosition, [siteContentProjection], timeoutMs);
  } catch (error) {
    request.log.warn({ err: error }, 'site_content has not caught up with the sync yet');
  }
  // After the rows committed, so a page view in between cannot cache the old row again.
  const cache = deps.parts.pageCache;
  for (const { kind, slug } of report.changed) cache.invalidate(pageKey(kind, slug));
}
