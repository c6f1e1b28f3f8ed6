import fc from 'fast-check';

/** A request body as it goes on the wire, with the name of the class of input it stands for. */
export interface BodyCase {
  label: string;
  /** Undefined: no body at all. */
  text?: string;
  /** Undefined: application/json; null: no Content-Type header. */
  contentType?: string | null;
  encoding?: 'utf8' | 'latin1';
}

type Key = string | number;
type Json = unknown;

/** What PostgreSQL cannot store and the edge must refuse, in a string or an object key. */
export const BAD_TEXT = ['\u0000', '\ud800', '\udfff', 'a\u0000b', 'x\ud83d', '\ude00y'];
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
const WRONG_VALUES: Json[] = [
  null,
  0,
  -1.5,
  1e308,
  true,
  false,
  '',
  'x',
  [],
  {},
  [1, {}],
  { a: [null] },
  '1',
];
const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/problem+json',
  'application/octet-stream',
  '*/*',
  'application/json, text/plain',
];

/** Every place in a JSON value, the root included, as key paths. */
function placesOf(value: Json, path: Key[] = [], out: { path: Key[]; value: Json }[] = []) {
  out.push({ path, value });
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) placesOf(value[i], [...path, i], out);
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) placesOf(item, [...path, key], out);
  return out;
}

/** An own, enumerable property even for `__proto__` (plain assignment would set the prototype). */
function define(target: object, key: Key, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A copy of `root` with the place at `path` given to `change`, which returns its new value. */
function changeAt(root: Json, path: readonly Key[], change: (old: Json) => Json): Json {
  // JSON.parse keeps an own `__proto__` key as data, so the copy holds exactly what `root` held.
  const copy = JSON.parse(JSON.stringify(root) ?? 'null') as Json;
  if (path.length === 0) return change(copy);
  let parent = copy as Record<Key, Json>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<Key, Json>;
  const last = path[path.length - 1] as Key;
  define(parent, last, change(parent[last]));
  return copy;
}

/** Picks a place by an index the arbitrary drew, among those `fit` accepts (all when none fits). */
function pick(value: Json, index: number, fit: (v: Json) => boolean = () => true) {
  const places = placesOf(value);
  const fitting = places.filter((p) => fit(p.value));
  const from = fitting.length > 0 ? fitting : places;
  return from[index % from.length] as { path: Key[]; value: Json };
}

const isObject = (v: Json): v is Record<string, Json> => !!v && typeof v === 'object' && !Array.isArray(v);
const typeOf = (v: Json) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** A value of another JSON type than one of the given type. */
const OTHER_TYPE: Record<string, Json> = {
  null: 0,
  number: '1',
  string: 1,
  boolean: 'true',
  array: {},
  object: [],
};

/** Stands for a place whose text is spliced in after JSON.stringify (it could not build it). */
const SPLICE = '\u0001fuzz-splice\u0001';
const json = (value: Json, splice?: string) => {
  const text = JSON.stringify(value) ?? 'null';
  return splice === undefined ? text : text.replace(JSON.stringify(SPLICE), () => splice);
};

/** Nesting as text, `levels` deep: JSON.stringify overflows long before 10,000 levels. */
function nested(levels: number, shape: 'arrays' | 'objects' | 'mixed'): string {
  if (shape === 'arrays') return `${'['.repeat(levels)}${']'.repeat(levels)}`;
  if (shape === 'objects') return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  return `${'[{"a":'.repeat(levels / 2)}1${'}]'.repeat(levels / 2)}`;
}

/**
 * The classes of body the fuzz sends, each with its weight: a valid-looking body, and its mutations.
 * `otherValues` are valid values of other schemas of the document, swapped in somewhere.
 */
export function bodyClasses(
  valid: fc.Arbitrary<Json>,
  otherValues: fc.Arbitrary<Json>,
): fc.WeightedArbitrary<BodyCase>[] {
  const at = fc.nat();
  const mutate = <T>(extra: fc.Arbitrary<T>, build: (value: Json, index: number, extra: T) => BodyCase) =>
    fc.tuple(valid, at, extra).map(([value, index, e]) => build(value, index, e));
  return [
    { weight: 4, arbitrary: valid.map((v) => ({ label: 'valid', text: json(v) })) },
    {
      weight: 3,
      arbitrary: mutate(fc.constantFrom(...WRONG_VALUES), (value, index, wrong) => {
        const place = pick(value, index);
        const swapped = typeOf(wrong) === typeOf(place.value) ? OTHER_TYPE[typeOf(wrong)] : wrong;
        return { label: 'wrong type', text: json(changeAt(value, place.path, () => swapped)) };
      }),
    },
    {
      weight: 2,
      arbitrary: mutate(fc.tuple(fc.constantFrom(...BAD_TEXT), fc.nat()), (value, index, [bad, cut]) => {
        const place = pick(value, index, (v) => typeof v === 'string');
        const text = typeof place.value === 'string' ? place.value : 'text';
        const spliced = text.slice(0, cut % (text.length + 1)) + bad + text.slice(cut % (text.length + 1));
        return { label: 'bad text in a string', text: json(changeAt(value, place.path, () => spliced)) };
      }),
    },
    {
      weight: 2,
      arbitrary: mutate(fc.constantFrom(...BAD_TEXT), (value, index, bad) => {
        const place = pick(value, index, isObject);
        const body = changeAt(value, place.path, (old) => {
          const target = isObject(old) ? old : {};
          define(target, `key${bad}`, 'v');
          return target;
        });
        return { label: 'bad text in a key', text: json(body) };
      }),
    },
    {
      weight: 2,
      arbitrary: mutate(
        fc.tuple(
          fc.constantFrom(...PROTO_KEYS),
          fc.constantFrom<Json>({}, { polluted: true }, [], 'x', null),
        ),
        (value, index, [key, polluting]) => {
          const place = pick(value, index, isObject);
          const body = changeAt(value, place.path, (old) => {
            const target = isObject(old) ? old : {};
            define(target, key, polluting);
            return target;
          });
          return { label: `prototype key ${key}`, text: json(body) };
        },
      ),
    },
    {
      weight: 2,
      arbitrary: mutate(
        fc.tuple(
          fc.constantFrom(100, 10_000),
          fc.constantFrom('arrays', 'objects', 'mixed') as fc.Arbitrary<'arrays'>,
        ),
        (value, index, [levels, shape]) => {
          const place = pick(value, index);
          const text = json(
            changeAt(value, place.path, () => SPLICE),
            nested(levels, shape),
          );
          return { label: `nested ${levels} levels (${shape})`, text };
        },
      ),
    },
    {
      weight: 1,
      arbitrary: mutate(fc.constantFrom(900_000, 1_048_577, 2_000_000), (value, index, size) => {
        const place = pick(value, index, (v) => typeof v === 'string');
        // Multi-byte text for one size, so that characters and bytes disagree.
        const huge = size === 2_000_000 ? '\u00e9'.repeat(size / 2) : 'x'.repeat(size);
        return { label: `huge string (${size} chars)`, text: json(changeAt(value, place.path, () => huge)) };
      }),
    },
    {
      weight: 2,
      arbitrary: mutate(fc.constant(0), (value, index) => {
        const place = pick(value, index, isObject);
        return {
          label: 'an array where an object was',
          text: json(changeAt(value, place.path, (old) => [old])),
        };
      }),
    },
    {
      weight: 2,
      arbitrary: mutate(fc.constantFrom('drop', 'unknown'), (value, index, how) => {
        const place = pick(value, index, isObject);
        const body = changeAt(value, place.path, (old) => {
          const target = isObject(old) ? old : {};
          const keys = Object.keys(target);
          if (how === 'drop' && keys.length > 0) delete target[keys[index % keys.length] as string];
          else target.fuzzUnknownField = 1;
          return target;
        });
        return { label: how === 'drop' ? 'a field dropped' : 'an unknown field', text: json(body) };
      }),
    },
    {
      weight: 2,
      arbitrary: mutate(otherValues, (value, index, other) => {
        const place = pick(value, index);
        return { label: "another schema's value", text: json(changeAt(value, place.path, () => other)) };
      }),
    },
    {
      weight: 2,
      arbitrary: mutate(fc.constantFrom(...WRONG_CONTENT_TYPES, null), (value, _index, contentType) => ({
        label: `content type ${contentType ?? '(none)'}`,
        text: json(value),
        contentType,
      })),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom<BodyCase>(
        { label: 'empty JSON body', text: '' },
        { label: 'whitespace JSON body', text: '  \n' },
        { label: 'no body, JSON content type' },
        { label: 'no body at all', contentType: null },
        { label: 'null body', text: 'null' },
        { label: 'empty array body', text: '[]' },
        { label: 'string body', text: '"x"' },
        { label: 'invalid UTF-8 bytes', text: '{"name":"\xff\xfe\xed\xa0\x80"}', encoding: 'latin1' },
      ),
    },
    {
      weight: 1,
      arbitrary: mutate(fc.nat(), (value, _index, cut) => {
        const text = json(value);
        return { label: 'malformed JSON', text: `${text.slice(0, cut % Math.max(1, text.length))},` };
      }),
    },
  ];
}

/** Any class of body, by weight. */
export const bodyCases = (valid: fc.Arbitrary<Json>, otherValues: fc.Arbitrary<Json>) =>
  fc.oneof(...bodyClasses(valid, otherValues));
