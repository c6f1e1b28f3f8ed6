import * as assert from 'uvu/assert';
import type { ZodApp } from '../../src/http/routes.ts';

/** The cookies a response sets, by name: each one's value and its whole `Set-Cookie` line. */
export const cookiesOf = (setCookie: string | string[] | undefined) =>
  new Map(
    [setCookie ?? []].flat().map((c) => {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      return [pair!.slice(0, eq), { value: pair!.slice(eq + 1), raw: c }];
    }),
  );

const csrfIn = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1];

/** Signs in to the console as a browser would: the form's token and its cookie, then the credential. */
export async function signIn(app: ZodApp, credential: string, headers: Record<string, string> = {}) {
  const form = await app.inject({ method: 'GET', url: '/admin/sign-in', headers });
  const token = csrfIn(form.body);
  const formCookie = cookiesOf(form.headers['set-cookie']).get('stk_console_signin');
  assert.ok(token && formCookie, 'the form carries its token and sets its cookie');
  return app.inject({
    method: 'POST',
    url: '/admin/sign-in',
    headers: {
      ...headers,
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `stk_console_signin=${formCookie!.value}`,
    },
    payload: new URLSearchParams({ _csrf: token!, credential, next: '/admin/work' }).toString(),
  });
}

/** A signed-in session: its cookie header and the CSRF token its pages carry. */
export async function consoleSession(app: ZodApp, credential: string) {
  const res = await signIn(app, credential);
  assert.is(res.statusCode, 303);
  const cookie = `stk_console=${cookiesOf(res.headers['set-cookie']).get('stk_console')!.value}`;
  const page = await app.inject({ method: 'GET', url: '/admin/projections', headers: { cookie } });
  const csrf = csrfIn(page.body);
  assert.ok(csrf, "the page carries the session's CSRF token");
  return { cookie, csrf: csrf! };
}

/** A console form posted with a session's cookie and token. */
export function postForm(
  app: ZodApp,
  session: { cookie: string; csrf: string },
  url: string,
  fields: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url,
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: session.csrf, ...fields }).toString(),
  });
}
