import * as assert from 'uvu/assert';
import { addToCrmExecutor } from '../../../processes/runs/executors/add-to-crm.ts';
import { followLead } from '../../../services/leads/identity.ts';
import { leadView } from '../../../src/domain/leads/access.ts';
import { bearer, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { runRowContext } from '../../support/executor-context.ts';
import { createLead } from '../../support/sequences.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('add_to_crm executor: rows to canonical leads');

/** The lead as its stream tells it (the read model may lag an executor, which does not wait for it). */
const getLead = async (t: TestApp, _key: string, id: string) =>
  leadView((await followLead(t.deps.store, id))!);

test('direct mappings, a structured email source at its path; the cell is the lead ids; a re-run changes nothing', async ({
  t,
  key,
  organizationId,
}) => {
  const tableId = await createTable(t.app, key, 'Research');
  const run = addToCrmExecutor({ store: t.deps.store });
  const config = {
    provider: 'add_to_crm',
    fieldMappings: {
      fullName: 'name',
      title: 'role',
      companyDomain: 'site',
      linkedinUrl: 'profile',
      emailAddresses: [{ column: 'contact', path: 'emails.work' }],
      phoneNumbers: [{ column: 'phone' }],
    },
  };
  const cells = {
    name: 'Katherine Johnson',
    role: 'Mathematician',
    site: 'https://www.NASA.gov/langley',
    profile: 'linkedin.com/in/kjohnson/',
    contact: { emails: { work: 'KJ@nasa.gov' } },
    phone: '+1 757 555 0100',
  };
  const ctx = runRowContext({
    organizationId,
    tableId,
    column: { id: 'col_crm', config },
    row: { id: 'row_1', cells },
  });
  const outcome = await run(ctx);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  const [leadId] = (outcome as { value: string[] }).value;
  const lead = await getLead(t, key, leadId!);
  assert.is(lead.fullName, 'Katherine Johnson');
  assert.is(lead.companyDomain, 'nasa.gov');
  assert.is(lead.linkedinUrl, 'https://www.linkedin.com/in/kjohnson');
  assert.equal(lead.emailAddresses, [{ address: 'kj@nasa.gov', source: 'add_to_crm:col_crm' }]);
  assert.equal(lead.phoneNumbers, [{ number: '+17575550100', source: 'add_to_crm:col_crm' }]);
  assert.equal(lead.sources, [{ tableId, rowId: 'row_1', columnId: 'col_crm' }]);
  const again = await run(ctx);
  assert.equal((again as { value: string[] }).value, [leadId]);
  assert.equal(await getLead(t, key, leadId!), lead, 're-running the row adds nothing');
});

test('one merge logic: a lead made by POST /api/leads is the one a row of the same person joins', async ({
  t,
  key,
  organizationId,
}) => {
  const tableId = await createTable(t.app, key, 'Merge');
  const manual = await createLead(t.app, key, {
    fullName: 'Dorothy Vaughan',
    emailAddresses: ['dv@nasa.gov'],
    title: 'Supervisor',
  });
  const outcome = await addToCrmExecutor({ store: t.deps.store })(
    runRowContext({
      organizationId,
      tableId,
      column: {
        id: 'col_m',
        config: {
          provider: 'add_to_crm',
          fieldMappings: { emailAddresses: [{ column: 'email' }], title: 'title', companyName: 'company' },
        },
      },
      row: { id: 'row_m', cells: { email: 'DV@nasa.gov', title: 'Programmer', company: 'NASA' } },
    }),
  );
  assert.equal((outcome as { value: string[] }).value, [manual]);
  const lead = await getLead(t, key, manual);
  assert.is(lead.title, 'Supervisor', 'never overwritten');
  assert.is(lead.companyName, 'NASA', 'filled');
  assert.equal(lead.sources, [{ tableId, rowId: 'row_m', columnId: 'col_m' }]);
});

test('multi-source: common plus an array source gives one lead per item; __array_item paths and row keys', async ({
  t,
  key,
  organizationId,
}) => {
  const tableId = await createTable(t.app, key, 'Companies');
  const config = {
    provider: 'add_to_crm',
    fieldMappings: {
      common: { companyDomain: 'domain', companyName: 'company' },
      leadSources: [
        {
          kind: 'array',
          sourceColumn: 'people',
          sourceArrayPath: 'data.items',
          template: {
            fullName: '__array_item.name',
            emailAddresses: '__array_item.contact.email',
            title: '__array_item.title',
          },
        },
        { kind: 'row', template: { fullName: 'ceo' } },
      ],
    },
  };
  const cells = {
    domain: 'acme.io',
    company: 'Acme',
    ceo: 'Wile Coyote',
    people: JSON.stringify({
      data: {
        items: [
          { name: 'Road Runner', title: 'Sprinter', contact: { email: 'rr@acme.io' } },
          { name: 'Elmer Fudd', contact: { email: 'elmer@acme.io' } },
          { name: 'No Key' },
        ],
      },
    }),
  };
  const outcome = await addToCrmExecutor({ store: t.deps.store })(
    runRowContext({ organizationId, tableId, column: { id: 'col_multi', config }, row: { cells } }),
  );
  assert.ok(outcome.ok, JSON.stringify(outcome));
  const ids = (outcome as { value: string[] }).value;
  // Road Runner, Elmer Fudd, No Key (name at domain from common), and the CEO from the row source.
  assert.is(ids.length, 4);
  const leads = await Promise.all(ids.map((id) => getLead(t, key, id)));
  assert.equal(
    leads.map((l) => [
      l.fullName,
      l.companyDomain,
      l.companyName,
      l.emailAddresses.map((e: { address: string }) => e.address),
    ]),
    [
      ['Road Runner', 'acme.io', 'Acme', ['rr@acme.io']],
      ['Elmer Fudd', 'acme.io', 'Acme', ['elmer@acme.io']],
      ['No Key', 'acme.io', 'Acme', []],
      ['Wile Coyote', 'acme.io', 'Acme', []],
    ],
  );
});

test('a row with no identifiable lead is a row error naming why; nothing is stored', async ({
  t,
  key,
  organizationId,
}) => {
  const tableId = await createTable(t.app, key, 'Empty');
  const before = await t.deps.store.head();
  const outcome = await addToCrmExecutor({ store: t.deps.store })(
    runRowContext({
      organizationId,
      tableId,
      column: {
        config: { provider: 'add_to_crm', fieldMappings: { fullName: 'name', linkedinUrl: 'profile' } },
      },
      row: { cells: { name: 'Only A Name', profile: 'https://example.com/not-linkedin' } },
    }),
  );
  assert.not.ok(outcome.ok);
  const { error } = outcome as { error: { code: string; message: string } };
  assert.is(error.code, 'no_identifiable_lead');
  assert.match(error.message, /linkedinUrl/);
  assert.equal(await t.deps.store.head(), before, 'no event appended');
});

test('20 rows of one person run at once end as one lead with every row as a source', async ({
  t,
  key,
  organizationId,
}) => {
  const tableId = await createTable(t.app, key, 'Twenty');
  const run = addToCrmExecutor({ store: t.deps.store });
  const config = {
    provider: 'add_to_crm',
    fieldMappings: {
      fullName: 'name',
      companyDomain: 'domain',
      linkedinUrl: 'li',
      emailAddresses: [{ column: 'email' }],
    },
  };
  const outcomes = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      run(
        runRowContext({
          organizationId,
          tableId,
          column: { id: 'col_20', config },
          row: {
            id: `row_${i}`,
            cells: {
              name: 'Mary Jackson',
              domain: 'nasa.gov',
              li: i % 2 ? 'linkedin.com/in/maryjackson' : '',
              email: `mary${i % 3}@nasa.gov`,
            },
          },
        }),
      ),
    ),
  );
  const ids = new Set<string>();
  for (const o of outcomes) {
    assert.ok(o.ok);
    for (const id of (o as { value: string[] }).value) ids.add(id);
  }
  // A row answered before a later merge folded its lead may name the folded one: all lead to one live lead.
  const live = new Set(
    await Promise.all([...ids].map(async (id) => (await followLead(t.deps.store, id))!.id)),
  );
  assert.is(live.size, 1, [...live].join(', '));
  const lead = await getLead(t, key, [...live][0]!);
  assert.is(lead.sources.length, 20);
  assert.is(lead.emailAddresses.length, 3);
  // And the read model, once it has caught up, lists exactly that one.
  const listed = await eventually('the read model to settle', async () => {
    const data = (await call(t.app, 'GET', '/api/leads?q=mary%20jackson&limit=100', { headers: bearer(key) }))
      .body.data;
    return data.length === 1 && data[0].sources.length === 20 ? data : undefined;
  });
  assert.is(listed[0].id, lead.id);
});

test.run();
