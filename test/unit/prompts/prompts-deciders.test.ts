import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPrompt } from '../../../commands/prompts/create-prompt.ts';
import { deletePrompt } from '../../../commands/prompts/delete-prompt.ts';
import { updatePrompt } from '../../../commands/prompts/update-prompt.ts';
import { movePromptName } from '../../../services/prompts/names.ts';
import type { PromptEvent, PromptNameEvent } from '../../../src/domain/prompts/events.ts';
import { given, NOW, pathsOf } from '../../support/decider-spec.ts';

const test = suite('prompts: deciders of the prompt and prompt-names streams');

const at = NOW.toISOString();
const created: PromptEvent = {
  type: 'PromptTemplateCreated',
  data: {
    promptId: 'prm_1',
    organizationId: 'org_1',
    name: 'Intro',
    description: null,
    template: 'Hi {{name}}',
    variables: [{ name: 'name', required: true }],
    at,
  },
};
const create = {
  promptId: 'prm_1',
  organizationId: 'org_1',
  name: 'Intro',
  description: null,
  template: 'Hi {{name}}',
};

test('create: version 1 with the placeholders as variables; a mismatch is a 400 naming it', () => {
  given(createPrompt, []).when(create).thenEvents([created]);
  const refused = given(createPrompt, [])
    .when({ ...create, variables: [{ name: 'other' }] })
    .refuses('validation_failed');
  assert.equal(pathsOf(refused), ['template', 'variables[0].name']);
  given(createPrompt, [created]).when(create).refuses('conflict');
});

test('update: the next version holds the whole content; the same content makes no version', () => {
  const [versioned] = given(updatePrompt, [created])
    .when({ promptId: 'prm_1', template: 'Hello {{name}} from {{company}}' })
    .events();
  assert.equal(versioned, {
    type: 'PromptTemplateVersioned',
    data: {
      promptId: 'prm_1',
      organizationId: 'org_1',
      version: 2,
      name: 'Intro',
      description: null,
      template: 'Hello {{name}} from {{company}}',
      variables: [
        { name: 'name', required: true },
        { name: 'company', required: true },
      ],
      at,
    },
  });
  given(updatePrompt, [created])
    .when({ promptId: 'prm_1', name: 'Intro', template: 'Hi {{name}}' })
    .thenEvents([]);
  const third = given(updatePrompt, [created, versioned!])
    .when({ promptId: 'prm_1', description: 'd' })
    .events();
  assert.is((third[0]!.data as { version: number }).version, 3);
  given(updatePrompt, [created])
    .when({ promptId: 'prm_1', variables: [{ name: 'x' }] })
    .refuses('validation_failed');
});

test('delete: refused while columns name the template (409, listing them); 404 when gone', () => {
  const referencedBy = [{ tableId: 'tbl_1', columnId: 'col_1', key: 'summary' }];
  const refused = given(deletePrompt, [created])
    .when({ promptId: 'prm_1', referencedBy })
    .refuses('prompt_in_use');
  assert.equal(refused.extra.referencedBy, referencedBy);
  const deleted = given(deletePrompt, [created]).when({ promptId: 'prm_1', referencedBy: [] }).events();
  assert.is(deleted[0]!.type, 'PromptTemplateDeleted');
  given(updatePrompt, [created, ...deleted])
    .when({ promptId: 'prm_1', name: 'x' })
    .refuses('not_found');
  given(deletePrompt, [created, ...deleted])
    .when({ promptId: 'prm_1', referencedBy: [] })
    .refuses('not_found');
});

const claimed = (name: string, promptId: string): PromptNameEvent => ({
  type: 'PromptNameClaimed',
  data: { organizationId: 'org_1', name, promptId },
});
const released = (name: string, promptId: string): PromptNameEvent => ({
  type: 'PromptNameReleased',
  data: { organizationId: 'org_1', name, promptId },
});

test('names: unique in the organization; a rename claims and releases; a deleted holder yields', () => {
  const move = { organizationId: 'org_1', promptId: 'prm_2' };
  given(movePromptName, [])
    .when({ ...move, to: 'A' })
    .thenEvents([claimed('A', 'prm_2')]);
  const taken = given(movePromptName, [claimed('A', 'prm_1')])
    .when({ ...move, to: 'A' })
    .refuses('prompt_name_taken');
  assert.equal(pathsOf(taken), ['name']);
  given(movePromptName, [claimed('A', 'prm_2')])
    .when({ ...move, from: 'A', to: 'B' })
    .thenEvents([claimed('B', 'prm_2'), released('A', 'prm_2')]);
  given(movePromptName, [claimed('A', 'prm_1'), released('A', 'prm_1')])
    .when({ ...move, to: 'A' })
    .thenEvents([claimed('A', 'prm_2')]);
  given(movePromptName, [claimed('A', 'prm_1')])
    .when({ ...move, to: 'A', deletedHolder: 'prm_1' })
    .thenEvents([released('A', 'prm_1'), claimed('A', 'prm_2')]);
  // Releasing a name another template holds now changes nothing.
  given(movePromptName, [claimed('A', 'prm_1')])
    .when({ ...move, from: 'A' })
    .thenEvents([]);
});

test.run();
