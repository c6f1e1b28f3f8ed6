import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { service } from '../../../app/modules.ts';
import { InvalidEventError } from '../../../src/event-store/errors.ts';
import type { RecordedEvent } from '../../../src/event-store/port.ts';
import { EventRegistry } from '../../../src/event-store/registry.ts';
import { categoryOf, defineStream } from '../../../src/stream.ts';

const test = suite('event registry: built from stream definitions, strict both ways');

const note = {
  category: 'note',
  id: (id: string) => id,
  events: {
    NoteWritten: {
      schema: z.object({ text: z.string(), author: z.string() }),
      version: 2,
      // Version 1 had no author.
      upcasters: { 1: (data: unknown) => ({ ...(data as object), author: 'unknown' }) },
    },
  },
  initialState: () => [] as string[],
  evolve: (texts: string[], event: { data: { text: string } }) => [...texts, event.data.text],
};
const noteStream = defineStream(note);

const recorded = (type: string, data: unknown, schemaVersion?: number): RecordedEvent => ({
  id: '00000000-0000-4000-8000-000000000001',
  stream: noteStream.name('n1'),
  revision: 0n,
  position: { commit: 1n, prepare: 1n },
  type,
  data,
  metadata: schemaVersion === undefined ? {} : { schemaVersion },
  recordedAt: new Date(),
});

test('a declared type is validated and stamped with its schema version on append', () => {
  const registry = new EventRegistry([noteStream]);
  const prepared = registry.prepare({ type: 'NoteWritten', data: { text: 'a', author: 'b' } });
  assert.is(prepared.metadata.schemaVersion, 2);
  assert.throws(
    () => registry.prepare({ type: 'NoteWritten', data: { text: 1 } }),
    (e: unknown) => e instanceof InvalidEventError,
  );
});

test('a type no stream declares is refused on append and on read, not passed through', () => {
  const registry = new EventRegistry([noteStream]);
  assert.throws(
    () => registry.prepare({ type: 'Unknown', data: {} }),
    (e: unknown) => e instanceof InvalidEventError,
  );
  assert.throws(
    () => registry.decode(recorded('Unknown', {})),
    (e: unknown) => e instanceof InvalidEventError,
  );
});

test('an older version is upcast on read; a stored event that no longer fits is refused', () => {
  const registry = new EventRegistry([noteStream]);
  assert.equal(registry.decode(recorded('NoteWritten', { text: 'a' }, 1)).data, {
    text: 'a',
    author: 'unknown',
  });
  assert.throws(
    () => registry.decode(recorded('NoteWritten', { text: 5, author: 'x' }, 2)),
    (e: unknown) => e instanceof InvalidEventError,
  );
});

test('two streams declaring one type, or one category twice, are refused at start-up', () => {
  const twin = defineStream({ ...note, category: 'twin' });
  assert.throws(() => new EventRegistry([noteStream, twin]), /NoteWritten/);
  assert.throws(() => new EventRegistry([noteStream, noteStream]), /note/);
});

test('stream names are <category>-<id>, and the category is read back from a name', () => {
  assert.is(noteStream.name('n.1'), 'note-n.1');
  assert.is(categoryOf(noteStream.name('n-1')), 'note');
  assert.throws(() => defineStream({ ...note, category: 'bad-name' }), /'-'/);
});

test("the service's registry holds every feature's streams and finds a stream's definition by name", () => {
  for (const category of ['apikey', 'article', 'column', 'email', 'organization', 'table', 'user']) {
    assert.ok(service.registry.stream(category), category);
  }
  assert.equal(service.registry.categories(), [...service.registry.categories()].sort());
  for (const feature of service.features) {
    for (const stream of feature.streams) {
      for (const type of Object.keys(stream.events)) assert.ok(service.registry.has(type), type);
    }
  }
});

test.run();
