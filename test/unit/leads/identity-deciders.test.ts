import { suite } from 'uvu';
import type { LeadEvent } from '../../../src/domain/leads/events.ts';
import {
  claimKey,
  createOrMergeLead,
  markMergedInto,
  mergeIntoLead,
} from '../../../src/domain/leads/identity.ts';
import { type LeadData, normaliseLead } from '../../../src/domain/leads/lead.ts';
import { given, NOW } from '../../support/decider-spec.ts';

/*
 * Decider specs of the identity engine's deciders (src/domain/leads/identity.ts), shared by the leads
 * routes and the CRM provider: given a lead's or a key's events, when a record, then the events.
 * Which records end as one lead over a real store is test/integration/leads/lead-identity.test.ts.
 */
const test = suite('leads: identity deciders (create or merge, merge, merged into, key claims)');

const at = NOW.toISOString();
const record = (raw: Parameters<typeof normaliseLead>[0]): LeadData => normaliseLead(raw, 'manual').data;
const ada = record({ fullName: 'Ada L', companyDomain: 'x.org', emailAddresses: ['ada@x.org'] });
const created: LeadEvent = {
  type: 'LeadCreated',
  data: { leadId: 'led_1', organizationId: 'org_1', ...ada, at },
};
const deleted: LeadEvent = { type: 'LeadDeleted', data: { leadId: 'led_1', at } };

test('create or merge: a new lead from the record; on a lead already created, a merge of what is new', () => {
  given(createOrMergeLead, [])
    .when({ leadId: 'led_1', organizationId: 'org_1', data: ada })
    .thenEvents([created]);
  const more = record({ title: 'Countess', emailAddresses: ['ada@x.org', 'ada@home.org'] });
  given(createOrMergeLead, [created])
    .when({ leadId: 'led_1', organizationId: 'org_1', data: more })
    .thenEvents([
      {
        type: 'LeadMerged',
        data: {
          leadId: 'led_1',
          additions: {
            fields: { title: 'Countess' },
            emailAddresses: [{ address: 'ada@home.org', source: 'manual' }],
            phoneNumbers: [],
            sources: [],
          },
          from: null,
          at,
        },
      },
    ]);
  // The same record again adds nothing: no event.
  given(createOrMergeLead, [created])
    .when({ leadId: 'led_1', organizationId: 'org_1', data: ada })
    .thenEvents([]);
});

test('merge: nothing into a lead no longer live, nor a record naming another LinkedIn profile', () => {
  const withProfile = record({ linkedinUrl: 'linkedin.com/in/ada', emailAddresses: ['ada@x.org'] });
  const onProfile: LeadEvent = {
    type: 'LeadCreated',
    data: { leadId: 'led_1', organizationId: 'org_1', ...withProfile, at },
  };
  const otherProfile = record({
    linkedinUrl: 'linkedin.com/in/bob',
    emailAddresses: ['ada@x.org'],
    title: 'X',
  });
  given(mergeIntoLead, [onProfile]).when({ data: otherProfile, from: 'led_2' }).thenEvents([]);
  const more = record({ title: 'Countess', emailAddresses: ['ada@x.org'] });
  given(mergeIntoLead, [created, deleted]).when({ data: more, from: 'led_2' }).thenEvents([]);
  given(mergeIntoLead, [created])
    .when({ data: more, from: 'led_2' })
    .thenEvents([
      {
        type: 'LeadMerged',
        data: {
          leadId: 'led_1',
          additions: { fields: { title: 'Countess' }, emailAddresses: [], phoneNumbers: [], sources: [] },
          from: 'led_2',
          at,
        },
      },
    ]);
});

test('merged into: a live lead is folded into the older one once; a lead no longer live, never', () => {
  const mergedInto: LeadEvent = { type: 'LeadMergedInto', data: { leadId: 'led_1', into: 'led_0', at } };
  given(markMergedInto, [created]).when({ into: 'led_0' }).thenEvents([mergedInto]);
  given(markMergedInto, [created, mergedInto]).when({ into: 'led_0' }).thenEvents([]);
  given(markMergedInto, [created, deleted]).when({ into: 'led_0' }).thenEvents([]);
});

test('key claims: the first lead takes a key; a held key stays, unless its holder is the one being replaced', () => {
  const claim = { organizationId: 'org_1', key: 'em:ada@x.org', leadId: 'led_1' };
  const claimed = { type: 'LeadKeyClaimed' as const, data: claim };
  given(claimKey, []).when(claim).thenEvents([claimed]);
  given(claimKey, [claimed])
    .when({ ...claim, leadId: 'led_2' })
    .thenEvents([]);
  given(claimKey, [claimed])
    .when({ ...claim, leadId: 'led_2', replacing: 'led_1' })
    .thenEvents([{ type: 'LeadKeyClaimed', data: { ...claim, leadId: 'led_2' } }]);
  given(claimKey, [claimed])
    .when({ ...claim, leadId: 'led_2', replacing: 'led_9' })
    .thenEvents([]);
});

test.run();
