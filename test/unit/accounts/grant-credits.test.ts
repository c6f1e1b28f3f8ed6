import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createOrganization } from '../../../commands/accounts/bootstrap-attempt.ts';
import { grantCredits, MAX_BALANCE, MAX_GRANT } from '../../../commands/accounts/grant-credits.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { given, pathsOf } from '../../support/decider-spec.ts';

// A new organization holds 50 credits.
const created = given(createOrganization, [])
  .when({ organizationId: 'o1', name: 'Org', createdBy: 'u1' })
  .events();

test('a grant adds to the balance, the reason kept (trimmed)', () => {
  const events = given(grantCredits, created)
    .when({ organizationId: 'o1', amount: 250, reason: '  pilot  ' })
    .thenEvents([{ type: 'CreditsGranted', data: { organizationId: 'o1', amount: 250, reason: 'pilot' } }]);
  const state = [...created, ...events].reduce(organizationStream.evolve, organizationStream.initialState());
  assert.is(state.balance, 50 + 250);
});

test('refused: an unknown organization (404), an amount out of range or not whole, no reason', () => {
  given(grantCredits, []).when({ organizationId: 'o1', amount: 1, reason: 'x' }).refuses('not_found');
  for (const amount of [0, -5, 1.5, MAX_GRANT + 1, Number.NaN]) {
    const error = given(grantCredits, created)
      .when({ organizationId: 'o1', amount, reason: 'x' })
      .refuses('validation_failed');
    assert.equal(pathsOf(error), ['amount'], String(amount));
  }
  const blank = given(grantCredits, created)
    .when({ organizationId: 'o1', amount: 1, reason: '  ' })
    .refuses('validation_failed');
  assert.equal(pathsOf(blank), ['reason']);
});

test('refused: a balance past what the read model can hold', () => {
  const rich = [
    ...created,
    {
      type: 'CreditsGranted' as const,
      data: { organizationId: 'o1', amount: MAX_BALANCE - 60, reason: 'x' },
    },
  ];
  given(grantCredits, rich)
    .when({ organizationId: 'o1', amount: 10, reason: 'x' })
    .thenEvents([{ type: 'CreditsGranted', data: { organizationId: 'o1', amount: 10, reason: 'x' } }]);
  given(grantCredits, rich)
    .when({ organizationId: 'o1', amount: 11, reason: 'x' })
    .refuses('validation_failed');
});

test.run();
