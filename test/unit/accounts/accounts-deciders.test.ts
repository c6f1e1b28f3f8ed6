import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createOrganization, reserveEmail } from '../../../commands/accounts/bootstrap-attempt.ts';
import { type IssueKey, issueKey } from '../../../commands/accounts/issue-api-key.ts';
import { revokeKey } from '../../../commands/accounts/revoke-api-key.ts';
import type { ApiKeyEvent } from '../../../src/domain/accounts/events.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { given, NOW } from '../../support/decider-spec.ts';

const test = suite('accounts: deciders (given events, when command, then events or refusal)');

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
const issue: IssueKey = {
  keyId: 'k2',
  organizationId: 'o1',
  userId: 'u1',
  name: 'n',
  prefix: 'stk_k2',
  scopes: ['tables:read', 'tables:write'],
  secretHash: 'b'.repeat(64),
};

test('an email is reserved once; a second reservation is email_taken', () => {
  const command = {
    email: 'a@b.c',
    userId: 'u1',
    organizationId: 'o1',
    keyId: 'k1',
    passwordHash: 'scrypt$x',
    reservedAt: NOW.toISOString(),
  };
  const first = given(reserveEmail, [])
    .when(command)
    .thenEvents([{ type: 'EmailReserved', data: command }]);
  given(reserveEmail, first)
    .when({ ...command, userId: 'u2' })
    .refuses('email_taken');
});

test('a new organization gets the starter credits', () => {
  const events = given(createOrganization, [])
    .when({ organizationId: 'o1', name: 'O', createdBy: 'u1' })
    .thenEvents([
      { type: 'OrganizationCreated', data: { organizationId: 'o1', name: 'O', createdBy: 'u1' } },
      { type: 'CreditsGranted', data: { organizationId: 'o1', amount: 50, reason: 'starter' } },
    ]);
  const state = events.reduce(organizationStream.evolve, organizationStream.initialState());
  assert.is(state.balance, 50);
  given(createOrganization, events)
    .when({ organizationId: 'o1', name: 'O', createdBy: 'u1' })
    .refuses('conflict');
});

test('a key grants only scopes its grantor holds; a bootstrap (no grantor) grants any', () => {
  const refused = given(issueKey, [])
    .when({ ...issue, grantorScopes: new Set(['tables:read']) })
    .refuses('scope_not_held');
  assert.match(refused.detail, 'tables:write');
  const granted = given(issueKey, [])
    .when({ ...issue, grantorScopes: new Set(['tables:read', 'tables:write', 'keys:write']) })
    .events();
  assert.is(granted[0]?.type, 'ApiKeyIssued');
  assert.not.ok('grantorScopes' in (granted[0]!.data as object));
  assert.is(given(issueKey, []).when(issue).events().length, 1);
  given(issueKey, [issued])
    .when({ ...issue, keyId: 'k1' })
    .refuses('conflict');
});

test('revoking: own key revoked once; again nothing; other organization or unknown key not_found', () => {
  const revoke = { keyId: 'k1', organizationId: 'o1', otherAdminKeys: 0 };
  const first = given(revokeKey, [issued])
    .when(revoke)
    .thenEvents([{ type: 'ApiKeyRevoked', data: { keyId: 'k1', organizationId: 'o1' } }]);
  given(revokeKey, [issued, ...first])
    .when(revoke)
    .thenEvents([]);
  given(revokeKey, [issued])
    .when({ ...revoke, organizationId: 'o2' })
    .refuses('not_found');
  given(revokeKey, []).when(revoke).refuses('not_found');
});

test.run();
