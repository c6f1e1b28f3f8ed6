import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { followLead, LeadIdentity } from '../../../services/leads/identity.ts';
import { type LeadData, normaliseLead, type RawLead } from '../../../src/domain/leads/lead.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';

/*
 * The identity engine over a real event store: which records end as one lead, in sequence, in any
 * order, and all at once.
 */
const test = suite<StoreContext>('leads: identity and merge over the event store');
test.before(openStore);
test.after(closeStore);

let organization = 0;
const metadata = { correlationId: 'test', actor: 'test' };
const engine = (ctx: StoreContext, organizationId: string) =>
  new LeadIdentity({ store: ctx.store, clock: () => new Date() }, organizationId, metadata);
const record = (raw: RawLead, rowId = 'r'): LeadData => ({
  ...normaliseLead(raw, 'test').data,
  sources: [{ tableId: 'tbl_t', rowId, columnId: 'col_c' }],
});

/** Upserts the records one after another; answers, per record, the live lead it ends in. */
async function partition(ctx: StoreContext, records: LeadData[], concurrent = false): Promise<string[]> {
  const identity = engine(ctx, `org_${++organization}`);
  const results = concurrent
    ? await Promise.all(records.map((r) => identity.upsert(r)))
    : await records.reduce<Promise<{ leadId: string }[]>>(
        async (done, r) => [...(await done), await identity.upsert(r)],
        Promise.resolve([]),
      );
  return Promise.all(results.map(async (r) => (await followLead(ctx.store, r.leadId))!.id));
}

/** Group labels as the partition: records with the same label end in the same lead, others not. */
function assertGroups(ids: string[], groups: string, why: string) {
  for (let i = 0; i < ids.length; i++)
    for (let j = 0; j < ids.length; j++)
      assert.is(ids[i] === ids[j], groups[i] === groups[j], `${why}: records ${i} and ${j}`);
}

// [records, expected groups (one letter per record), why]
const CASES: [RawLead[], string, string][] = [
  [
    [{ linkedinUrl: 'linkedin.com/in/ada' }, { linkedinUrl: 'https://uk.linkedin.com/in/ADA/' }],
    'aa',
    'same LinkedIn',
  ],
  [
    [
      { linkedinUrl: 'linkedin.com/in/ada', emailAddresses: ['a@x.org'] },
      { linkedinUrl: 'linkedin.com/in/bob', emailAddresses: ['a@x.org'] },
    ],
    'ab',
    'different LinkedIn never merge',
  ],
  [[{ emailAddresses: ['a@x.org'] }, { emailAddresses: ['b@x.org', 'A@x.org'] }], 'aa', 'a shared email'],
  [
    [
      { fullName: 'Ada L', companyDomain: 'x.org' },
      { fullName: 'ada l', companyDomain: 'https://www.x.org' },
    ],
    'aa',
    'name at domain',
  ],
  [
    [
      { fullName: 'Ada L', companyDomain: 'x.org' },
      { fullName: 'Ada L', companyDomain: 'y.org' },
    ],
    'ab',
    'name alone',
  ],
  [
    [
      { fullName: 'Ada', emailAddresses: ['a@x.org'], phoneNumbers: ['+14155552671'] },
      { fullName: 'Bob', emailAddresses: ['b@x.org'], phoneNumbers: ['+14155552671'] },
    ],
    'ab',
    'a shared phone alone',
  ],
  [
    [
      { linkedinUrl: 'linkedin.com/in/ada' },
      { emailAddresses: ['a@x.org'] },
      { linkedinUrl: 'linkedin.com/in/ada', emailAddresses: ['a@x.org'] },
    ],
    'aaa',
    'a third record bridging two leads folds them into one',
  ],
];

test('the merge table: which records end as one lead', async (ctx) => {
  for (const [raws, groups, why] of CASES) {
    assertGroups(
      await partition(
        ctx,
        raws.map((r, i) => record(r, `r${i}`)),
      ),
      groups,
      why,
    );
  }
});

test('a merge fills empty fields, adds emails, phones and sources, and never overwrites', async (ctx) => {
  const identity = engine(ctx, `org_${++organization}`);
  const first = await identity.upsert(
    record({ fullName: 'Ada', title: 'Countess', emailAddresses: ['a@x.org'] }, 'r1'),
  );
  assert.ok(first.created);
  const second = await identity.upsert(
    record(
      {
        fullName: 'Ada Lovelace',
        title: 'Engineer',
        companyName: 'Engines',
        emailAddresses: ['a@x.org', 'b@x.org'],
        phoneNumbers: ['+14155552671'],
      },
      'r2',
    ),
  );
  assert.not.ok(second.created);
  assert.is(second.leadId, first.leadId);
  const { data } = second.state;
  assert.is(data.fullName, 'Ada');
  assert.is(data.title, 'Countess');
  assert.is(data.companyName, 'Engines');
  assert.equal(
    data.emailAddresses.map((e) => e.address),
    ['a@x.org', 'b@x.org'],
  );
  assert.equal(data.phoneNumbers, [{ number: '+14155552671', source: 'test' }]);
  assert.equal(
    data.sources.map((s) => s.rowId),
    ['r1', 'r2'],
  );
});

test('20 rows of the same person at once end as one lead holding every value', async (ctx) => {
  const records = Array.from({ length: 20 }, (_, i) =>
    record(
      {
        fullName: 'Grace Hopper',
        companyDomain: 'navy.mil',
        // Every record shares at least one key with another, never all the same one.
        ...(i % 3 === 0 ? { linkedinUrl: 'linkedin.com/in/grace' } : {}),
        emailAddresses: [`grace${i % 4}@navy.mil`],
        phoneNumbers: i % 5 === 0 ? [`+1415555${String(2600 + i)}`] : [],
      },
      `row${i}`,
    ),
  );
  const ids = await partition(ctx, records, true);
  assert.is(new Set(ids).size, 1, `ended as ${new Set(ids).size} leads`);
  const lead = (await followLead(ctx.store, ids[0]!))!;
  assert.is(lead.status, 'live');
  assert.equal(lead.data.emailAddresses.map((e) => e.address).sort(), [
    'grace0@navy.mil',
    'grace1@navy.mil',
    'grace2@navy.mil',
    'grace3@navy.mil',
  ]);
  assert.is(lead.data.phoneNumbers.length, 4);
  assert.is(lead.data.sources.length, 20);
  assert.is(lead.data.linkedinUrl, 'https://www.linkedin.com/in/grace');
});

/*
 * Records drawn from a few people, each record a random subset of its person's values (so values never
 * conflict), always with at least one key. The leads they end as do not depend on the order they come in.
 */
const PEOPLE = [0, 1, 2].map((p) => ({
  fullName: `Person ${p}`,
  companyDomain: `co${p}.com`,
  linkedinUrl: `linkedin.com/in/person${p}`,
  emails: [`p${p}a@co${p}.com`, `p${p}b@co${p}.com`],
  phone: `+1415555260${p}`,
  title: `Title ${p}`,
}));
const recordOf = fc
  .record({
    person: fc.integer({ min: 0, max: PEOPLE.length - 1 }),
    linkedin: fc.boolean(),
    emails: fc.subarray([0, 1]),
    nameDomain: fc.boolean(),
    phone: fc.boolean(),
    title: fc.boolean(),
  })
  .filter((r) => r.linkedin || r.emails.length > 0 || r.nameDomain);

type DrawnRecord = typeof recordOf extends fc.Arbitrary<infer T> ? T : never;

const rawOf = (r: DrawnRecord, i: number): LeadData => {
  const p = PEOPLE[r.person]!;
  return record(
    {
      ...(r.linkedin ? { linkedinUrl: p.linkedinUrl } : {}),
      emailAddresses: r.emails.map((e) => p.emails[e]!),
      ...(r.nameDomain ? { fullName: p.fullName, companyDomain: p.companyDomain } : {}),
      ...(r.phone ? { phoneNumbers: [p.phone] } : {}),
      ...(r.title ? { title: p.title } : {}),
    },
    `row${i}`,
  );
};

/** The leads as content, order-free: what a different order of the same records must give again. */
async function leadsOf(ctx: StoreContext, records: LeadData[]) {
  const ids = await partition(ctx, records);
  const leads = await Promise.all([...new Set(ids)].map((id) => followLead(ctx.store, id)));
  return leads
    .map((l) => {
      const { sources, emailAddresses, phoneNumbers, ...fields } = l!.data;
      return JSON.stringify({
        ...fields,
        emails: emailAddresses.map((e) => e.address).sort(),
        phones: phoneNumbers.map((p) => p.number).sort(),
        rows: sources.map((s) => s.rowId).sort(),
      });
    })
    .sort();
}

test('property: any order of the same records gives the same leads', async (ctx) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(recordOf, { minLength: 1, maxLength: 8 }).chain((records) =>
        fc.tuple(
          fc.constant(records),
          fc.shuffledSubarray(
            records.map((_, i) => i),
            { minLength: records.length },
          ),
        ),
      ),
      async ([records, order]) => {
        const data = records.map(rawOf);
        const inOrder = await leadsOf(ctx, data);
        const shuffled = await leadsOf(
          ctx,
          order.map((i) => data[i]!),
        );
        assert.equal(shuffled, inOrder);
      },
    ),
    { numRuns: 25, endOnFailure: true },
  );
});

test.run();
