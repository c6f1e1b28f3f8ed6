import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Decider, DomainEvent } from '../../../src/command.ts';
import {
  emailReservationDecider,
  organizationDecider,
} from '../../../src/domain/accounts/account-deciders.ts';
import { type ApiKeyCommand, apiKeyDecider } from '../../../src/domain/accounts/api-key-decider.ts';
import type { ApiKeyEvent } from '../../../src/domain/accounts/events.ts';
import { AppError } from '../../../src/errors.ts';

const test = suite('accounts: deciders (given events, when command, then events or refusal)');
const now = new Date('2024-01-01T00:00:00Z');

function given<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, events: E[]) {
  const state = events.reduce(decider.evolve, decider.initialState());
  return {
    when: (command: C) => {
      try {
        return { events: decider.decide(command, state, now), error: undefined };
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return { events: undefined, error };
      }
    },
  };
}

const issued: ApiKeyEvent = {
  type: 'ApiKeyIssued',
  data: {
    keyId: 'k1',
    organizationId: 'o1',
    userId: 'u1',
    name: 'n',
    prefix: 'stk_k1',
    scopes: ['tables:read'],
    secretHash: 'a'.repeat(64),
  },
};
const issue: ApiKeyCommand = {
  type: 'IssueApiKey',
  keyId: 'k2',
  organizationId: 'o1',
  userId: 'u1',
  name: 'n',
  prefix: 'stk_k2',
  scopes: ['tables:read', 'tables:write'],
  secretHash: 'b'.repeat(64),
};

test('an email is reserved once; a second reservation is email_taken', () => {
  const command = { email: 'a@b.c', userId: 'u1', organizationId: 'o1' };
  const first = given(emailReservationDecider, []).when(command);
  assert.equal(first.events, [{ type: 'EmailReserved', data: command }]);
  const second = given(emailReservationDecider, first.events!).when({ ...command, userId: 'u2' });
  assert.is(second.error?.code, 'email_taken');
});

test('a new organization gets the starter credits', () => {
  const { events } = given(organizationDecider, []).when({
    organizationId: 'o1',
    name: 'O',
    createdBy: 'u1',
  });
  assert.equal(events, [
    { type: 'OrganizationCreated', data: { organizationId: 'o1', name: 'O', createdBy: 'u1' } },
    { type: 'CreditsGranted', data: { organizationId: 'o1', amount: 50, reason: 'starter' } },
  ]);
  const state = events!.reduce(organizationDecider.evolve, organizationDecider.initialState());
  assert.is(state.balance, 50);
});

test('a key grants only scopes its grantor holds; a bootstrap (no grantor) grants any', () => {
  const refused = given(apiKeyDecider, []).when({ ...issue, grantorScopes: new Set(['tables:read']) });
  assert.is(refused.error?.code, 'scope_not_held');
  assert.match(refused.error!.detail, 'tables:write');
  const granted = given(apiKeyDecider, []).when({
    ...issue,
    grantorScopes: new Set(['tables:read', 'tables:write', 'keys:write']),
  });
  assert.is(granted.events?.[0]?.type, 'ApiKeyIssued');
  assert.not.ok('grantorScopes' in (granted.events![0]!.data as object));
  assert.is(given(apiKeyDecider, []).when(issue).events?.length, 1);
});

test('revoking: own key revoked once; again nothing; other organization or unknown key not_found', () => {
  const revoke = { type: 'RevokeApiKey', keyId: 'k1', organizationId: 'o1' } as const;
  const first = given(apiKeyDecider, [issued]).when(revoke);
  assert.equal(first.events, [{ type: 'ApiKeyRevoked', data: { keyId: 'k1', organizationId: 'o1' } }]);
  assert.equal(given(apiKeyDecider, [issued, ...first.events!]).when(revoke).events, []);
  assert.is(
    given(apiKeyDecider, [issued]).when({ ...revoke, organizationId: 'o2' }).error?.code,
    'not_found',
  );
  assert.is(given(apiKeyDecider, []).when(revoke).error?.code, 'not_found');
});

test.run();
