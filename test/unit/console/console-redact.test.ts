import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { diff, HIDDEN, redact } from '../../../queries/console/redact.ts';
import { html, trusted } from '../../../queries/console/ui/html.ts';
import { consoleCookie, cookieValue, sameToken } from '../../../src/auth/operators.ts';

const test = suite('console: secrets hidden, diffs, escaping, cookies');

test('redact hides every secret-named member, at any depth, and keeps the rest', () => {
  const event = {
    name: 'OPENAI',
    ciphertext: 'AbC123',
    nested: { secret: { keyId: 'k1', ciphertext: 'zz' }, passwordHash: 'scrypt$abc', note: 'kept' },
    list: [{ secretHash: 'ff' }, 3],
    missing: null,
    apiKey: null,
  };
  assert.equal(redact(event), {
    name: 'OPENAI',
    ciphertext: HIDDEN,
    nested: { secret: HIDDEN, passwordHash: HIDDEN, note: 'kept' },
    list: [{ secretHash: HIDDEN }, 3],
    missing: null,
    apiKey: null,
  });
});

test('a diff names each changed path; a secret only as changed, with neither value', () => {
  const before = { label: 'Company', config: { prompt: 'a', secret: { ciphertext: 'old' } }, tags: ['x'] };
  const after = {
    label: 'Legal name',
    config: { prompt: 'a', secret: { ciphertext: 'new' } },
    tags: ['x', 'y'],
    extra: 1,
  };
  const changes = diff(before, after);
  assert.equal(changes, [
    { path: 'label', kind: 'changed', before: 'Company', after: 'Legal name' },
    { path: 'config.secret', kind: 'secret changed' },
    { path: 'tags[1]', kind: 'added', after: 'y' },
    { path: 'extra', kind: 'added', after: 1 },
  ]);
  assert.not.match(JSON.stringify(changes), /old|new/);
  // An added secret is said to be there, never what it holds.
  assert.equal(diff({}, { passwordHash: 'scrypt$x' }), [
    { path: 'passwordHash', kind: 'added', after: HIDDEN },
  ]);
  assert.equal(diff(null, { a: 1 }), [{ path: '', kind: 'added', after: { a: 1 } }]);
  assert.equal(diff({ a: [1] }, { a: [1] }), []);
});

test('the html tag escapes every value but markup it made', () => {
  const name = '<script>alert(1)</script>';
  const out = html`<p title="${'"x"'}">${name}${html`<b>${'&'}</b>`}${['<i>', trusted('<br>')]}</p>`;
  assert.is(
    out.text,
    '<p title="&quot;x&quot;">&lt;script&gt;alert(1)&lt;/script&gt;<b>&amp;</b>&lt;i&gt;<br></p>',
  );
  assert.is(html`${null}${undefined}${false}${0}`.text, '0');
});

test('cookies: read by name, written HttpOnly, SameSite=Strict, under /admin, Secure over HTTPS', () => {
  assert.is(cookieValue('a=1; stk_console=tok; b=2', 'stk_console'), 'tok');
  assert.is(cookieValue('stk_console_signin=x', 'stk_console'), undefined);
  assert.is(cookieValue(undefined, 'stk_console'), undefined);
  assert.is(
    consoleCookie('stk_console', 'v', 60, false),
    'stk_console=v; Path=/admin; Max-Age=60; HttpOnly; SameSite=Strict',
  );
  assert.match(consoleCookie('stk_console', 'v', 60, true), /; Secure$/);
  assert.ok(sameToken('abc', 'abc'));
  assert.not.ok(sameToken('abc', 'abd'));
  assert.not.ok(sameToken('abc', 'abcd'));
});

test.run();
