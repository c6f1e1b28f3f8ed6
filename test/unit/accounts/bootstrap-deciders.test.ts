import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  abandonOrganization,
  abandonUser,
  completeBootstrap,
  createOrganization,
  registerUser,
  releaseEmail,
  reserveEmail,
  voidKey,
} from '../../../commands/accounts/bootstrap-attempt.ts';
import { issueKey } from '../../../commands/accounts/issue-api-key.ts';
import { revokeKey } from '../../../commands/accounts/revoke-api-key.ts';
import type { Scope } from '../../../src/auth/scopes.ts';
import type { ApiKeyEvent, EmailReservationEvent } from '../../../src/domain/accounts/events.ts';
import {
  emailReservationStream,
  organizationStream,
  TAKEOVER_GRACE_MS,
  takeoverAllowed,
} from '../../../src/domain/accounts/streams.ts';
import type { RecordedEvent } from '../../../src/event-store/port.ts';
import { given, NOW } from '../../support/decider-spec.ts';
import { testRegistry } from '../../support/test-streams.ts';

const test = suite('accounts: a bootstrap attempt, its undoing, and the last key that can manage keys');

const attempt = {
  email: 'a@b.c',
  userId: 'u1',
  organizationId: 'o1',
  keyId: 'k1',
  passwordHash: 'scrypt$16384$8$1$salt$hash',
  reservedAt: NOW.toISOString(),
};
const ref = { email: 'a@b.c', userId: 'u1', organizationId: 'o1', keyId: 'k1' };
const reserved: EmailReservationEvent = { type: 'EmailReserved', data: attempt };
const fold = (events: EmailReservationEvent[]) =>
  events.reduce(emailReservationStream.evolve, emailReservationStream.initialState());

test('reserved, then completed: the address is taken for good, by this attempt only', () => {
  assert.is(fold([reserved]).status, 'pending');
  given(reserveEmail, [reserved])
    .when({ ...attempt, userId: 'u2' })
    .refuses('email_taken');
  const done = given(completeBootstrap, [reserved])
    .when(ref)
    .thenEvents([{ type: 'BootstrapCompleted', data: ref }]);
  assert.equal(fold([reserved, ...done]), { status: 'completed', userId: 'u1', organizationId: 'o1' });
  const taken = given(reserveEmail, [reserved, ...done])
    .when({ ...attempt, userId: 'u2' })
    .refuses('email_taken');
  assert.match(taken.detail, 'exists already');
  // Completing twice changes nothing; another attempt cannot complete it, nor release it.
  given(completeBootstrap, [reserved, ...done])
    .when(ref)
    .thenEvents([]);
  given(completeBootstrap, [reserved])
    .when({ ...ref, userId: 'u2' })
    .refuses('email_taken');
  given(releaseEmail, [reserved, ...done])
    .when({ ...ref, reason: 'failed' })
    .thenEvents([]);
});

test('released by its attempt, the address is free again; a release by another attempt is nothing', () => {
  given(releaseEmail, [reserved])
    .when({ ...ref, userId: 'u2', reason: 'failed' })
    .thenEvents([]);
  const released = given(releaseEmail, [reserved])
    .when({ ...ref, reason: 'taken_over' })
    .thenEvents([
      {
        type: 'EmailReleased',
        data: { email: 'a@b.c', userId: 'u1', organizationId: 'o1', reason: 'taken_over' },
      },
    ]);
  assert.equal(fold([reserved, ...released]), { status: 'free' });
  given(reserveEmail, [reserved, ...released])
    .when({ ...attempt, userId: 'u2' })
    .events();
});

test('a reservation of version 1 (no attempt named) reads as a finished account and is never taken over', () => {
  const stored = (data: object, schemaVersion: number): RecordedEvent => ({
    id: 'e1',
    stream: 'email-a@b.c',
    revision: 0n,
    position: { commit: 1n, prepare: 1n },
    type: 'EmailReserved',
    data,
    metadata: { schemaVersion },
    recordedAt: NOW,
  });
  const old = testRegistry.decode(stored({ email: 'a@b.c', userId: 'u0', organizationId: 'o0' }, 1));
  assert.equal(old.data, {
    email: 'a@b.c',
    userId: 'u0',
    organizationId: 'o0',
    keyId: null,
    passwordHash: null,
    reservedAt: null,
  });
  const state = fold([old as unknown as EmailReservationEvent]);
  assert.equal(state, { status: 'completed', userId: 'u0', organizationId: 'o0' });
  assert.equal(testRegistry.decode(stored(attempt, 2)).data, attempt);
  assert.is(
    fold([testRegistry.decode(stored(attempt, 2)) as unknown as EmailReservationEvent]).status,
    'pending',
  );
});

test('an unfinished attempt is taken over at once with its password, by anyone after the grace period', () => {
  const pending = fold([reserved]);
  assert.ok(pending.status === 'pending');
  const at = (ms: number) => new Date(NOW.getTime() + ms);
  assert.ok(takeoverAllowed(pending.attempt, true, at(0)));
  assert.not.ok(takeoverAllowed(pending.attempt, false, at(0)));
  assert.not.ok(takeoverAllowed(pending.attempt, false, at(TAKEOVER_GRACE_MS - 1)));
  assert.ok(takeoverAllowed(pending.attempt, false, at(TAKEOVER_GRACE_MS)));
});

test('an abandoned organization loses its credits and can never be created, even if it was not yet', () => {
  const created = given(createOrganization, [])
    .when({ organizationId: 'o1', name: 'O', createdBy: 'u1' })
    .events();
  const abandoned = given(abandonOrganization, created)
    .when({ organizationId: 'o1', reason: 'failed' })
    .thenEvents([
      {
        type: 'OrganizationAbandoned',
        data: { organizationId: 'o1', reason: 'failed', creditsWithdrawn: 50 },
      },
    ]);
  const state = [...created, ...abandoned].reduce(
    organizationStream.evolve,
    organizationStream.initialState(),
  );
  assert.is(state.balance, 0);
  given(abandonOrganization, [...created, ...abandoned])
    .when({ organizationId: 'o1', reason: 'failed' })
    .thenEvents([]);
  const early = given(abandonOrganization, []).when({ organizationId: 'o2', reason: 'taken_over' }).events();
  given(createOrganization, early)
    .when({ organizationId: 'o2', name: 'O', createdBy: 'u1' })
    .refuses('conflict');
});

test('an abandoned user and a voided key can never be registered or issued afterwards', () => {
  const gone = given(abandonUser, []).when({ userId: 'u1', reason: 'failed' }).events();
  given(registerUser, gone)
    .when({
      userId: 'u1',
      organizationId: 'o1',
      email: 'a@b.c',
      firstName: null,
      lastName: null,
      passwordHash: 'scrypt$x',
    })
    .refuses('conflict');
  const voided = given(voidKey, [])
    .when({ keyId: 'k1', organizationId: 'o1' })
    .thenEvents([{ type: 'ApiKeyRevoked', data: { keyId: 'k1', organizationId: 'o1' } }]);
  given(issueKey, voided as ApiKeyEvent[])
    .when({
      keyId: 'k1',
      organizationId: 'o1',
      userId: 'u1',
      name: 'n',
      prefix: 'p',
      scopes: [],
      secretHash: 'a'.repeat(64),
    })
    .refuses('conflict');
  given(voidKey, voided as ApiKeyEvent[])
    .when({ keyId: 'k1', organizationId: 'o1' })
    .thenEvents([]);
});

test('the last active key holding keys:write is not revoked; with another one left, or without the scope, it is', () => {
  const issued = (scopes: Scope[]): ApiKeyEvent => ({
    type: 'ApiKeyIssued',
    data: {
      keyId: 'k1',
      organizationId: 'o1',
      userId: 'u1',
      name: 'n',
      prefix: 'p',
      scopes,
      secretHash: 'a'.repeat(64),
    },
  });
  const revoke = { keyId: 'k1', organizationId: 'o1' };
  const refused = given(revokeKey, [issued(['keys:read', 'keys:write'])])
    .when({ ...revoke, otherAdminKeys: 0 })
    .refuses('last_admin_key');
  assert.match(refused.detail, 'keys:write');
  given(revokeKey, [issued(['keys:write'])])
    .when({ ...revoke, otherAdminKeys: 1 })
    .thenEvents([{ type: 'ApiKeyRevoked', data: revoke }]);
  given(revokeKey, [issued(['keys:read'])])
    .when({ ...revoke, otherAdminKeys: 0 })
    .thenEvents([{ type: 'ApiKeyRevoked', data: revoke }]);
});

test.run();
