/**
 * API specs of the sequence commands that read no read model (create, the status machine, PATCH), on
 * the in-memory store (conventions 17 and 21): given the streams, when a request, then the answer and
 * the events it appended. The specs that read a read model too (a GET, a list, a delete counting
 * active enrollments, enrollments, sender accounts) run on PostgreSQL, in
 * test/integration/sequences/.
 */
import * as assert from 'uvu/assert';
import { sequenceCommands } from '../../../commands/sequences/index.ts';
import { SEQUENCE_MACHINE } from '../../../src/domain/sequences/machines.ts';
import { sequenceStream } from '../../../src/domain/sequences/streams.ts';
import { bearer } from '../../support/accounts.ts';
import { thenAnswered, thenAppended, whenRequest } from '../../support/api-spec.ts';
import { NOW } from '../../support/decider-spec.ts';
import { memoryAppSuite } from '../../support/memory-app.ts';
import { callStep, createSequence, emailStep } from '../../support/sequences.ts';

const test = memoryAppSuite(
  'sequences API specs in memory: create, status machine, PATCH',
  sequenceCommands,
  {
    clock: () => NOW,
  },
);

const at = NOW.toISOString();
const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();

test('POST: 201 DRAFT with Location, appending the sequence as created', async ({
  t,
  key,
  keyId,
  organizationId,
}) => {
  const when = await whenRequest(t, 'POST', '/api/sequences', {
    headers: bearer(key),
    body: { name: 'Intro', steps: [emailStep, callStep] },
  });
  const res = thenAnswered(when, 201);
  assert.is(when.answer.headers.location, `/api/sequences/${res.id}`);
  assert.is(res.status, 'DRAFT');
  thenAppended(when, keyId, [
    {
      stream: sequenceStream.name(res.id),
      type: 'SequenceCreated',
      data: {
        sequenceId: res.id,
        organizationId,
        name: 'Intro',
        sourceTableId: null,
        steps: [emailStep, callStep],
        clonedFrom: null,
        at,
      },
    },
  ]);
});

test('every transition of the sequence machine: the legal ones move, every other is 409 invalid_transition with allowedActions', async ({
  t,
  key,
  keyId,
}) => {
  const actions = ['activate', 'pause', 'archive'] as const;
  // Reach each status, then try every action from it.
  const reach: Record<string, string[]> = {
    DRAFT: [],
    ACTIVE: ['activate'],
    PAUSED: ['activate', 'pause'],
    ARCHIVED: ['archive'],
  };
  const act = (id: string, action: string) =>
    whenRequest(t, 'POST', `/api/sequences/${id}/${action}`, { headers: bearer(key) });
  for (const [status, path] of Object.entries(reach)) {
    for (const action of actions) {
      const id = await createSequence(t.app, key);
      for (const step of path) thenAnswered(await act(id, step), 200);
      const when = await act(id, action);
      const res = when.answer;
      const next = (SEQUENCE_MACHINE as Record<string, Record<string, string>>)[status]![action];
      if (next) {
        assert.is(res.status, 200, `${status} ${action}: ${JSON.stringify(res.body)}`);
        assert.is(res.body.status, next);
        thenAppended(when, keyId, [
          {
            stream: sequenceStream.name(id),
            type: 'SequenceStatusChanged',
            data: { sequenceId: id, from: status, to: next, at },
          },
        ]);
      } else {
        assert.is(res.status, 409, `${status} ${action}`);
        assert.is(res.body.code, 'invalid_transition');
        assert.equal(res.body.allowedActions, Object.keys(SEQUENCE_MACHINE[status as 'DRAFT']));
        // A refused transition changes nothing.
        thenAppended(when, keyId, []);
      }
    }
  }
  const empty = await createSequence(t.app, key, { steps: [] });
  const refused = await act(empty, 'activate');
  assert.is(refused.answer.status, 409);
  assert.equal(paths(refused.answer.body), ['steps']);
  thenAppended(refused, keyId, []);
});

test('PATCH: steps only while DRAFT or PAUSED; the name any time but ARCHIVED', async ({ t, key, keyId }) => {
  const id = await createSequence(t.app, key);
  const path = `/api/sequences/${id}`;
  const patch = (body: object) => whenRequest(t, 'PATCH', path, { headers: bearer(key), body });
  const action = (name: string) => whenRequest(t, 'POST', `${path}/${name}`, { headers: bearer(key) });
  const edited = (data: object) => [
    { stream: sequenceStream.name(id), type: 'SequenceEdited', data: { sequenceId: id, ...data, at } },
  ];
  const steps = await patch({ steps: [emailStep] });
  assert.is(steps.answer.body.steps[0].type, 'email');
  thenAppended(steps, keyId, edited({ steps: [emailStep] }));
  thenAnswered(await action('activate'), 200);
  const refused = await patch({ steps: [callStep] });
  assert.is(refused.answer.status, 409);
  assert.is(refused.answer.body.code, 'invalid_transition');
  thenAppended(refused, keyId, []);
  const renamed = await patch({ name: 'Renamed' });
  assert.is(renamed.answer.body.name, 'Renamed');
  thenAppended(renamed, keyId, edited({ name: 'Renamed' }));
  thenAnswered(await action('pause'), 200);
  assert.is((await patch({ steps: [callStep] })).answer.status, 200);
  thenAnswered(await action('archive'), 200);
  const archived = await patch({ name: 'Again' });
  assert.is(archived.answer.status, 409);
  thenAppended(archived, keyId, []);
  const empty = await patch({});
  assert.is(empty.answer.status, 400);
  thenAppended(empty, keyId, []);
});

test.run();
