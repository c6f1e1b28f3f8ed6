import * as assert from 'uvu/assert';
import { sendersFor } from '../../../services/sequences/enroll.ts';
import { addSenderAccount } from '../../../services/sequences/senders.ts';
import { newSenderAccountId } from '../../../src/domain/sequences/access.ts';
import { senderAccountStream } from '../../../src/domain/sequences/streams.ts';
import { eventually } from '../../support/eventually.ts';
import { addMember } from '../../support/sequences.ts';
import { tablesSuite } from '../../support/tables.ts';

/*
 * Issue 17: an assignee's default sender accounts were read from the read model alone, so an account
 * made a moment before an enrollment might not count. They are read from the accounts' streams now.
 */
const test = tablesSuite('sequences: an assignee default senders, read from the log');

const metadata = { correlationId: 'test', actor: 'test' };
const at = (day: number) => () => new Date(Date.UTC(2026, 0, day));

test('accounts made with the read model stopped count at once; one made before the lists via the read model; a deletion at once', async ({
  t,
  key,
  organizationId,
}) => {
  const userId = await addMember(t.app, key, `sender${Date.now()}@example.com`);
  const other = await addMember(t.app, key, `other${Date.now()}@example.com`);
  // An account as made before members' sender lists were kept: on its own stream only.
  const before = newSenderAccountId();
  await t.deps.store.append(senderAccountStream.name(before), [
    {
      type: 'SenderAccountAdded',
      data: {
        senderAccountId: before,
        organizationId,
        type: 'email',
        address: 'before@example.com',
        userId,
        dailyLimit: 10,
        at: at(1)().toISOString(),
      },
    },
  ]);
  await eventually('the read model to have it', async () => {
    const found = await sendersFor(t.deps.pool, organizationId, userId, undefined, t.deps.store);
    return found.email === before ? found : undefined;
  });

  await t.deps.projections.stop();
  const add = async (userOf: string, type: 'email' | 'linkedin', day: number) => {
    const senderAccountId = newSenderAccountId();
    const command = {
      senderAccountId,
      organizationId,
      type,
      address: `${day}@example.com`,
      userId: userOf,
      dailyLimit: 5,
    };
    await addSenderAccount({ store: t.deps.store, clock: at(day) }, command, metadata);
    return senderAccountId;
  };
  const linkedin = await add(userId, 'linkedin', 3);
  await add(userId, 'linkedin', 4);
  const email = await add(userId, 'email', 2);
  await add(other, 'email', 1);
  await add(other, 'linkedin', 1);

  const defaults = await sendersFor(t.deps.pool, organizationId, userId, undefined, t.deps.store);
  assert.equal(defaults, { email: before, linkedin }, 'the oldest of each type, the new ones included');
  // Deleted a moment ago (the read model has not seen it): the next oldest of its type.
  await t.deps.store.append(senderAccountStream.name(before), [
    { type: 'SenderAccountDeleted', data: { senderAccountId: before, at: at(5)().toISOString() } },
  ]);
  assert.equal(await sendersFor(t.deps.pool, organizationId, userId, undefined, t.deps.store), {
    email,
    linkedin,
  });
  const named = { email: 'snd_named' };
  assert.equal(await sendersFor(t.deps.pool, organizationId, userId, named, t.deps.store), named);
  assert.equal(await sendersFor(t.deps.pool, organizationId, null, undefined, t.deps.store), {});
});

test.run();
