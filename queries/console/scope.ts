import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceDeps } from '../../src/deps.ts';
import { AppError, type FieldError } from '../../src/errors.ts';
import { errorHandler } from '../../src/http/problem.ts';
import type { RouteModule, ZodApp } from '../../src/http/routes.ts';
import { html } from './ui/html.ts';
import { CONSOLE_CSP, renderPage } from './ui/layout.ts';

export const wantsHtml = (request: FastifyRequest) => (request.headers.accept ?? '').includes('text/html');

/** Same-origin relative paths under /admin only: a `next` can never send the browser elsewhere. */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/admin(?:[/?#]|$)/.test(next) && !next.startsWith('//')
    ? next
    : '/admin/projections';
}

/** A page that says what went wrong, for a browser; a problem body for anything else. */
function consoleErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (!wantsHtml(request)) return errorHandler(error, request, reply);
  if (error instanceof AppError && error.code === 'unauthorized')
    return reply.redirect(`/admin/sign-in?next=${encodeURIComponent(safeNext(request.url))}`, 303);
  let status = 500;
  let detail = 'An unexpected error occurred; the log has it under this request id.';
  let fields: FieldError[] = [];
  if (error instanceof AppError)
    [status, detail, fields] = [error.status, error.detail, error.extra.errors ?? []];
  else if (error.validation || (error.statusCode && error.statusCode < 500))
    [status, detail] = [error.statusCode ?? 400, error.message];
  else request.log.error({ err: error }, 'unhandled error');
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .send(
      renderPage({
        title: 'Error',
        page: 'error',
        operator: request.operator,
        body: html`<h1>${status === 404 ? 'Not found' : 'Something went wrong'}</h1>
<p class="error" role="alert">${detail}</p>
${fields.length > 0 ? html`<ul>${fields.map((f) => html`<li><code>${f.path}</code>: ${f.message}</li>`)}</ul>` : ''}
<p class="meta">Request id <code>${request.id}</code></p>
<p><a href="/admin/projections">Back to the console</a></p>`,
      }),
    );
}

/**
 * The console's routes live in a scope of their own: HTML forms post `application/x-www-form-urlencoded`
 * here only (the API keeps reading JSON alone), browsers get error pages (and the sign-in page when
 * signed out) instead of problem bodies, and every answer carries the console's security headers.
 */
export function inConsoleScope(
  register: (scope: ZodApp, deps: ServiceDeps) => void | Promise<void>,
): RouteModule {
  return async (app, deps) => {
    await app.register(async (scope) => {
      scope.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: 64 * 1024 },
        (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
      );
      scope.setErrorHandler(consoleErrors);
      scope.addHook('onSend', async (_request, reply) => {
        reply.header('content-security-policy', CONSOLE_CSP);
        reply.header('x-content-type-options', 'nosniff');
        reply.header('referrer-policy', 'no-referrer');
        reply.header('x-frame-options', 'DENY');
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      });
      await register(scope as ZodApp, deps);
    });
  };
}
