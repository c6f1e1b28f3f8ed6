import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { deleteSecret } from '../../../commands/secrets/delete-secret.ts';
import { setSecret } from '../../../commands/secrets/put-secret.ts';
import type { SecretEvent } from '../../../src/domain/secrets/events.ts';
import { evolveSecret, initialSecretState, replacedKeys } from '../../../src/domain/secrets/secret-state.ts';
import { given, NOW } from '../../support/decider-spec.ts';

const test = suite('secrets: deciders of the secret stream (given events, when command, then events)');

const at = NOW.toISOString();
const org = 'org_1';
const set = (version: number, keyId: string): SecretEvent => ({
  type: 'SecretValueSet',
  data: { organizationId: org, name: 'API', version, keyId, ciphertext: `ct-${keyId}`, at },
});
const deleted: SecretEvent = { type: 'SecretDeleted', data: { organizationId: org, name: 'API', at } };
const command = (keyId: string) => ({ organizationId: org, name: 'API', keyId, ciphertext: `ct-${keyId}` });

test('set: version 1 on a new stream, the next version after, 1 again after a delete', () => {
  given(setSecret, [])
    .when(command('k1'))
    .thenEvents([set(1, 'k1')]);
  given(setSecret, [set(1, 'k1')])
    .when(command('k2'))
    .thenEvents([set(2, 'k2')]);
  given(setSecret, [set(1, 'k1'), set(2, 'k2'), deleted])
    .when(command('k3'))
    .thenEvents([set(1, 'k3')]);
});

test('delete: 404 when there is no secret (or it is deleted already)', () => {
  given(deleteSecret, [set(1, 'k1')])
    .when({ organizationId: org, name: 'API' })
    .thenEvents([deleted]);
  given(deleteSecret, []).when({ organizationId: org, name: 'API' }).refuses('not_found');
  given(deleteSecret, [set(1, 'k1'), deleted])
    .when({ organizationId: org, name: 'API' })
    .refuses('not_found');
});

test('the keys to destroy: every key the stream named but the current one; all of them once deleted', () => {
  const fold = (events: SecretEvent[]) => events.reduce(evolveSecret, initialSecretState());
  assert.equal(replacedKeys(fold([set(1, 'k1')])), []);
  assert.equal(replacedKeys(fold([set(1, 'k1'), set(2, 'k2'), set(3, 'k3')])), ['k1', 'k2']);
  assert.equal(replacedKeys(fold([set(1, 'k1'), set(2, 'k2'), deleted])), ['k1', 'k2']);
  assert.equal(replacedKeys(fold([set(1, 'k1'), deleted, set(1, 'k3')])), ['k1']);
  const state = fold([set(1, 'k1'), set(2, 'k2')]);
  assert.is(state.createdAt, at);
  assert.is(state.version, 2);
});

test.run();
