import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  additions,
  identityKeys,
  normaliseLead,
  type RawLead,
  sameLead,
} from '../../../src/domain/leads/lead.ts';
import {
  normaliseDomain,
  normaliseEmail,
  normaliseLinkedin,
  normalisePhone,
} from '../../../src/domain/leads/normalise.ts';

test('domains: lower-case, no scheme, credentials, www., port, path or trailing dot; not-domains refused', () => {
  const cases: [string, string | undefined][] = [
    ['Example.COM', 'example.com'],
    ['https://www.Example.com/about?x=1', 'example.com'],
    ['http://user@www2.example.co.uk:8080/', 'example.co.uk'],
    ['sub.example.com.', 'sub.example.com'],
    ['localhost', undefined],
    ['not a domain', undefined],
  ];
  for (const [input, expected] of cases) assert.is(normaliseDomain(input), expected, input);
});

test('LinkedIn: one canonical profile URL whatever the subdomain, scheme, case, query or trailing path', () => {
  const canonical = 'https://www.linkedin.com/in/ada-lovelace';
  for (const input of [
    'linkedin.com/in/ada-lovelace',
    'https://www.linkedin.com/in/Ada-Lovelace/',
    'http://uk.linkedin.com/in/ada-lovelace?trk=x#top',
    'https://m.linkedin.com/in/ada-lovelace/details/experience',
    'https://www.linkedin.com/in/ada%2Dlovelace',
  ])
    assert.is(normaliseLinkedin(input), canonical, input);
  for (const input of ['https://www.linkedin.com/company/acme', 'https://evil-linkedin.com/in/x', 'ada'])
    assert.is(normaliseLinkedin(input), undefined, input);
});

test('emails lower-cased; phones to E.164 by libphonenumber-js, only with a country prefix', () => {
  assert.is(normaliseEmail('  Ada@Example.COM '), 'ada@example.com');
  assert.is(normaliseEmail('ada@'), undefined);
  assert.is(normalisePhone('+1 (415) 555-2671'), '+14155552671');
  assert.is(normalisePhone('+44 20 7946 0958'), '+442079460958');
  assert.is(normalisePhone('415 555 2671'), undefined);
  assert.is(normalisePhone('+1 2'), undefined);
});

test('normaliseLead: strings or objects for emails and phones; bad values named by path; fullName derived', () => {
  const { data, errors } = normaliseLead(
    {
      firstName: ' Ada ',
      lastName: 'Lovelace',
      companyDomain: 'https://www.Analytical.org/engines',
      emailAddresses: ['ADA@analytical.org', { address: 'ada@analytical.org', source: 'x' }, 'bad'],
      phoneNumbers: [{ number: '+1 415 555 2671', source: 'crm' }, '555'],
      linkedinUrl: 'https://example.com/in/ada',
    },
    'manual',
  );
  assert.equal(
    errors.map((e) => e.path),
    ['linkedinUrl', 'emailAddresses[2]', 'phoneNumbers[1]'],
  );
  assert.is(data.fullName, 'Ada Lovelace');
  assert.is(data.companyDomain, 'analytical.org');
  assert.equal(data.emailAddresses, [{ address: 'ada@analytical.org', source: 'manual' }]);
  assert.equal(data.phoneNumbers, [{ number: '+14155552671', source: 'crm' }]);
  assert.is(data.linkedinUrl, null);
});

const lead = (raw: RawLead) => normaliseLead(raw, 'test').data;

// The identity rules as a table: [a, b, same person?, why].
const SAME: [RawLead, RawLead, boolean, string][] = [
  [
    { linkedinUrl: 'linkedin.com/in/ada' },
    { linkedinUrl: 'https://www.linkedin.com/in/ADA/' },
    true,
    'same LinkedIn',
  ],
  [
    { linkedinUrl: 'linkedin.com/in/ada', emailAddresses: ['a@x.org'] },
    { linkedinUrl: 'linkedin.com/in/other', emailAddresses: ['a@x.org'] },
    false,
    'different LinkedIn URLs never, even with a shared email',
  ],
  [{ emailAddresses: ['a@x.org', 'b@x.org'] }, { emailAddresses: ['B@X.org'] }, true, 'any email'],
  [
    { linkedinUrl: 'linkedin.com/in/ada', emailAddresses: ['a@x.org'] },
    { emailAddresses: ['a@x.org'] },
    true,
    'email when one has no LinkedIn',
  ],
  [
    { fullName: 'Ada Lovelace', companyDomain: 'x.org' },
    { firstName: 'ada', lastName: 'LOVELACE', companyDomain: 'www.x.org' },
    true,
    'name + domain',
  ],
  [
    { fullName: 'Ada Lovelace', companyDomain: 'x.org' },
    { fullName: 'Ada Lovelace', companyDomain: 'y.org' },
    false,
    'name alone',
  ],
  [
    { fullName: 'Ada Lovelace', phoneNumbers: ['+14155552671'] },
    { fullName: 'Bob', phoneNumbers: ['+1 415 555 2671'] },
    false,
    'a shared phone alone',
  ],
  [{ emailAddresses: ['a@x.org'] }, { emailAddresses: ['b@x.org'] }, false, 'different emails'],
];

test('identity: the table of same and different people', () => {
  for (const [a, b, same, why] of SAME) {
    assert.is(sameLead(lead(a), lead(b)), same, why);
    assert.is(sameLead(lead(b), lead(a)), same, `${why} (reversed)`);
  }
});

test('identity keys: LinkedIn, each email, name at domain; never a phone', () => {
  const keys = identityKeys(
    lead({
      fullName: 'Ada Lovelace',
      companyDomain: 'x.org',
      linkedinUrl: 'linkedin.com/in/ada',
      emailAddresses: ['a@x.org'],
      phoneNumbers: ['+14155552671'],
    }),
  );
  assert.equal(keys, ['li:https://www.linkedin.com/in/ada', 'em:a@x.org', 'nd:ada lovelace@x.org']);
  assert.equal(identityKeys(lead({ fullName: 'Ada', phoneNumbers: ['+14155552671'] })), []);
});

test('additions: fill empty fields, add new emails and phones, never overwrite; nothing new is nothing', () => {
  const base = lead({ fullName: 'Ada Lovelace', title: 'Countess', emailAddresses: ['a@x.org'] });
  const add = additions(
    base,
    lead({
      fullName: 'A. Lovelace',
      title: 'Engineer',
      companyName: 'Engines',
      emailAddresses: ['a@x.org', 'b@x.org'],
      phoneNumbers: ['+14155552671'],
    }),
  );
  assert.equal(add, {
    fields: { companyName: 'Engines' },
    emailAddresses: [{ address: 'b@x.org', source: 'test' }],
    phoneNumbers: [{ number: '+14155552671', source: 'test' }],
    sources: [],
  });
  assert.is(additions(base, lead({ fullName: 'Other', emailAddresses: ['A@x.org'] })), undefined);
});

test.run();
