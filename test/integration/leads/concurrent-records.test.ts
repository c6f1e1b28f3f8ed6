import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { followLead, LeadIdentity } from '../../../services/leads/identity.ts';
import { newLeadId } from '../../../src/domain/leads/identity.ts';
import { normaliseLead } from '../../../src/domain/leads/lead.ts';
import { leadKeyStream } from '../../../src/domain/leads/lead-state.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';

/*
 * Records of one person upserted at once the way add_to_crm runs them (one engine per row, each with
 * its row's metadata): every record answers the same lead, and that lead is the only one made, so a
 * row's cell never names a lead folded after the row ended (issue 17: cells of one email named two).
 */
const test = suite<StoreContext>('leads: records of one person at once, as a run upserts them');
test.before(openStore);
test.after(closeStore);

let organization = 0;
const clock = () => new Date();

/** Upserts every record at once, each through its own engine, as a run's rows do. */
const upsertAtOnce = (ctx: StoreContext, organizationId: string, emails: string[]) =>
  Promise.all(
    emails.map((email, i) => {
      const metadata = { correlationId: `run_t:row_${i}`, actor: 'run:run_t' };
      const identity = new LeadIdentity({ store: ctx.store, clock }, organizationId, metadata);
      const { data } = normaliseLead({ fullName: `Row ${i}`, emailAddresses: [email] }, 'add_to_crm:col_c');
      return identity.upsert({
        ...data,
        sources: [{ tableId: 'tbl_t', rowId: `row_${i}`, columnId: 'col_c' }],
      });
    }),
  );

/** The ids of the leads ever created in an organization (folded or not). */
async function leadsCreated(ctx: StoreContext, organizationId: string): Promise<string[]> {
  const events = await ctx.store.readAll({ types: ['LeadCreated'], limit: 100_000 });
  return events
    .filter((e) => e.type === 'LeadCreated')
    .map((e) => e.data as { leadId: string; organizationId: string })
    .filter((d) => d.organizationId === organizationId)
    .map((d) => d.leadId);
}

test('30 records of 3 people at once, five times: each answers its person one lead, the only one made', async (ctx) => {
  for (let round = 0; round < 5; round++) {
    const organizationId = `org_${++organization}`;
    const emails = Array.from({ length: 30 }, (_, i) => `person${i % 3}@example.com`);
    const upserted = await upsertAtOnce(ctx, organizationId, emails);
    const byEmail = new Map<string, Set<string>>();
    for (const [i, u] of upserted.entries()) {
      byEmail.set(emails[i]!, (byEmail.get(emails[i]!) ?? new Set()).add(u.leadId));
    }
    const answered = [...byEmail.values()].map((ids) => [...ids]);
    assert.ok(
      answered.every((ids) => ids.length === 1),
      `round ${round}: one person answered as ${JSON.stringify(answered)}`,
    );
    assert.equal((await leadsCreated(ctx, organizationId)).sort(), answered.flat().sort(), `round ${round}`);
    for (const [email, ids] of byEmail) {
      const lead = (await followLead(ctx.store, [...ids][0]!))!;
      assert.is(lead.status, 'live');
      assert.is(lead.data.sources.length, 10, email);
    }
    // As POST /api/leads tells it: one record of each person created its lead, the others merged.
    assert.is(upserted.filter((u) => u.created).length, 3, `round ${round}`);
  }
});

test('a key claimed for a lead never created (its process died between) goes to the next record of it', async (ctx) => {
  const organizationId = `org_${++organization}`;
  const orphan = newLeadId();
  await ctx.store.append(leadKeyStream.name(organizationId, 'em:lost@example.com'), [
    { type: 'LeadKeyClaimed', data: { organizationId, key: 'em:lost@example.com', leadId: orphan } },
  ]);
  const [first, second] = await upsertAtOnce(ctx, organizationId, ['lost@example.com', 'LOST@example.com']);
  assert.is(first!.leadId, orphan);
  assert.is(second!.leadId, orphan);
  assert.is([first, second].filter((u) => u!.created).length, 1);
  const lead = (await followLead(ctx.store, orphan))!;
  assert.is(lead.status, 'live');
  assert.equal(lead.data.sources.map((s) => s.rowId).sort(), ['row_0', 'row_1']);
});

test.run();
