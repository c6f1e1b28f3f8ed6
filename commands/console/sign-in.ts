import { z } from 'zod';
import { safeNext } from '../../queries/console/scope.ts';
import { SIGN_IN_COOKIE, sendSignInPage } from '../../queries/console/sign-in-page.ts';
import {
  consoleCookie,
  cookieValue,
  operators,
  SESSION_COOKIE,
  SESSION_HOURS,
  sameToken,
} from '../../src/auth/operators.ts';
import { AppError } from '../../src/errors.ts';
import type { RouteModule } from '../../src/http/routes.ts';

const REFUSE_KEY = { refuse: 'a console form, guarded by its CSRF token' };

const SignInForm = z.object({
  credential: z.string().max(200),
  _csrf: z.string().max(100).optional(),
  next: z.string().max(2000).optional(),
});

/**
 * POST /admin/sign-in: an operator credential for a session cookie (HttpOnly, SameSite=Strict, Secure
 * when the request came over HTTPS as the trusted proxy says, ending after SESSION_HOURS). The form's
 * token must match its cookie (login CSRF). POST /admin/sign-out ends the session.
 */
export const signInCommands: RouteModule = (app, deps) => {
  app.post(
    '/admin/sign-in',
    { config: { access: 'public', idempotency: REFUSE_KEY }, schema: { hide: true, body: SignInForm } },
    async (request, reply) => {
      const { credential, _csrf, next } = request.body;
      const expected = cookieValue(request.headers.cookie, SIGN_IN_COOKIE);
      if (!_csrf || !expected || !sameToken(_csrf, expected))
        throw new AppError('forbidden', 'The sign-in form has expired: load it again and sign in.');
      const signedIn = await operators.signIn(deps.pool, credential);
      if (!signedIn) {
        request.log.warn('console sign-in refused');
        return sendSignInPage(request, reply, {
          next,
          status: 401,
          error: 'That credential is not valid: unknown, revoked or mistyped.',
        });
      }
      request.log.info({ operator: signedIn.session.name }, 'console sign-in');
      const secure = request.protocol === 'https';
      return reply
        .header('set-cookie', [
          consoleCookie(SESSION_COOKIE, signedIn.token, SESSION_HOURS * 3600, secure),
          consoleCookie(SIGN_IN_COOKIE, '', 0, secure),
        ])
        .redirect(safeNext(next), 303);
    },
  );

  app.post(
    '/admin/sign-out',
    {
      config: { access: 'operator', idempotency: REFUSE_KEY },
      schema: { hide: true, body: z.object({ _csrf: z.string().max(100).optional() }).optional() },
    },
    async (request, reply) => {
      const token = cookieValue(request.headers.cookie, SESSION_COOKIE);
      if (token) await operators.signOut(deps.pool, token);
      request.log.info({ operator: request.operator?.name }, 'console sign-out');
      return reply
        .header('set-cookie', consoleCookie(SESSION_COOKIE, '', 0, request.protocol === 'https'))
        .redirect('/admin/sign-in?done=signed-out', 303);
    },
  );
};
