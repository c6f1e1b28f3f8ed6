import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cacheKey } from '../../../services/search/cache.ts';
import { profileHandle } from '../../../src/clients/linkedin-provider.ts';
import { rowCharge } from '../../../src/domain/accounts/credits.ts';
import { oneWayIssues } from '../../../src/domain/search/one-way.ts';
import { domainField } from '../../../src/domain/search/schemas.ts';

test('the cache key: the same for requests that mean the same, different for anything else', () => {
  const key = cacheKey('web_search', { provider: 'searxng', query: 'Acme  Anvils', limit: 5 });
  assert.is(cacheKey('web_search', { limit: 5, query: ' acme anvils ', provider: 'searxng' }), key);
  assert.is(
    cacheKey('web_search', { provider: 'searxng', query: 'acme anvils', limit: 5, language: undefined }),
    key,
  );
  assert.is.not(cacheKey('news_search', { provider: 'searxng', query: 'acme anvils', limit: 5 }), key);
  assert.is.not(cacheKey('web_search', { provider: 'searxng', query: 'acme anvils', limit: 6 }), key);
  assert.is.not(cacheKey('web_search', { provider: 'other', query: 'acme anvils', limit: 5 }), key);
});

test('a profile handle from a handle, a profile URL in its forms, or nothing for another URL', () => {
  assert.is(profileHandle('janedoe'), 'janedoe');
  assert.is(profileHandle(' ACoAAB123 '), 'ACoAAB123');
  assert.is(profileHandle('https://www.linkedin.com/in/janedoe/'), 'janedoe');
  assert.is(profileHandle('linkedin.com/in/jane-doe-42?trk=x#about'), 'jane-doe-42');
  assert.is(profileHandle('https://de.linkedin.com/in/j%C3%B6rg'), 'jörg');
  assert.is(profileHandle('https://www.linkedin.com/company/acme'), undefined);
  assert.is(profileHandle('https://example.com/in/janedoe'), undefined);
  assert.is(profileHandle('a/b'), undefined);
  assert.is(profileHandle('  '), undefined);
});

test('one way of asking: none, two, or a way missing a field is named at the field to fix', () => {
  const ways = [['query'], ['name', 'company']];
  const given =
    (...fields: string[]) =>
    (f: string) =>
      fields.includes(f);
  assert.equal(oneWayIssues(ways, given('query')), []);
  assert.equal(oneWayIssues(ways, given('name', 'company')), []);
  assert.equal(oneWayIssues(ways, given()), [
    { path: ['query'], message: 'give query, or name and company' },
  ]);
  assert.equal(oneWayIssues(ways, given('company')), [{ path: ['name'], message: 'needed with company' }]);
  assert.equal(oneWayIssues(ways, given('query', 'name', 'company')), [
    { path: ['name'], message: 'give only one of: query, or name and company' },
  ]);
});

test('a domain as given is its host name in lower case; anything else is refused', () => {
  assert.is(domainField.parse('https://www.Acme.com/about?x=1'), 'acme.com');
  assert.is(domainField.parse('sub.acme.co.uk'), 'sub.acme.co.uk');
  for (const bad of ['acme', 'not a domain', 'http://', '-acme.com', 'acme..com'])
    assert.not.ok(domainField.safeParse(bad).success, bad);
});

test('a run row answered from the search cache costs nothing; one the provider answered costs its price', () => {
  assert.is(rowCharge(2, null, true), 0);
  assert.is(rowCharge(2, null), 2);
  assert.is(rowCharge(2, { code: 'provider_rate_limited' }), 2, 'the provider was asked');
  assert.is(rowCharge(2, { code: 'provider_unavailable' }), 0, 'nothing was asked');
});

test.run();
