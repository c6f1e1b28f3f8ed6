import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { consoleCookie, randomToken } from '../../src/auth/operators.ts';
import type { ZodApp } from '../../src/http/routes.ts';
import { safeNext } from './scope.ts';
import { html } from './ui/html.ts';
import { renderPage } from './ui/layout.ts';

/** The sign-in form's own CSRF cookie (double submit: no session exists yet to hold a token). */
export const SIGN_IN_COOKIE = 'stk_console_signin';

/**
 * The sign-in page: an operator credential (from `stk admin operators issue`) for a session. Its form
 * carries a fresh token that must come back with the same value as a cookie, so another site cannot
 * sign a browser in under a credential of its choosing.
 */
export function sendSignInPage(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { next?: string; error?: string; notice?: string; status?: number } = {},
) {
  const token = randomToken();
  const secure = request.protocol === 'https';
  return reply
    .status(options.status ?? 200)
    .header('set-cookie', consoleCookie(SIGN_IN_COOKIE, token, 1800, secure))
    .type('text/html; charset=utf-8')
    .send(
      renderPage({
        title: 'Sign in',
        page: 'sign-in',
        notice: options.notice,
        body: html`<h1>Operator console</h1>
<form method="post" action="/admin/sign-in" class="sign-in">
<input type="hidden" name="_csrf" value="${token}">
<input type="hidden" name="next" value="${safeNext(options.next)}">
<p><label for="credential">Operator credential</label><br>
<input id="credential" name="credential" type="password" autocomplete="off" required size="60" aria-describedby="credential-help${options.error ? ' credential-error' : ''}"${options.error ? html` aria-invalid="true"` : ''}></p>
<p id="credential-help" class="meta">Issued by <code>stk admin operators issue &lt;name&gt;</code>; an API key does not sign in here.</p>
${options.error ? html`<p id="credential-error" class="error" role="alert">${options.error}</p>` : ''}
<p><button type="submit">Sign in</button></p>
</form>`,
      }),
    );
}

export function signInPageRoutes(app: ZodApp): void {
  app.get(
    '/admin/sign-in',
    {
      config: { access: 'public' },
      schema: {
        hide: true,
        querystring: z.object({ next: z.string().max(2000).optional(), done: z.string().max(40).optional() }),
      },
    },
    async (request, reply) =>
      sendSignInPage(request, reply, { next: request.query.next, notice: request.query.done }),
  );
  app.get('/admin', { config: { access: 'operator' }, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/admin/projections', 303),
  );
}
