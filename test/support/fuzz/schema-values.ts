import fc from 'fast-check';

/** The parts of an OpenAPI 3.0 schema object the generator reads. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  nullable?: boolean;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean | number;
  exclusiveMaximum?: boolean | number;
}

export type Components = Record<string, JsonSchema>;

/** Past this many nested schemas a recursive one ($ref to itself) takes its first, leaf, branch. */
const DEEP = 5;

/** Small arbitrary JSON for a schema that allows anything (`{}`, `additionalProperties: {}`). */
export const anyJson = fc.jsonValue({ maxDepth: 2 });

/** Strings a field of that name or format accepts, where the schema alone does not say. */
function knownString(name: string | undefined, format: string | undefined) {
  // fc.emailAddress() draws RFC 5322 oddities that a sign-up form rightly refuses.
  if (format === 'email' || name === 'email')
    return fc
      .tuple(fc.stringMatching(/^[a-z][a-z0-9.]{0,20}$/), fc.domain())
      .map(([user, host]) => `${user}@${host}`);
  if (format === 'uri' || format === 'url' || name === 'url') return fc.webUrl();
  if (format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (format === 'uuid') return fc.uuid();
  return undefined;
}

function stringOf(schema: JsonSchema, name?: string): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  // Valid-looking, not exhaustive: long strings are the mutations' job.
  const maxLength = Math.min(schema.maxLength ?? 40, minLength + 40);
  const fits = (s: string) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity);
  const known = knownString(name, schema.format);
  if (known) return known.filter(fits);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  return fc.string({ minLength, maxLength, unit: 'grapheme' }).filter(fits);
}

function numberOf(schema: JsonSchema): fc.Arbitrary<number> {
  // OpenAPI 3.0: a boolean exclusive bound makes its minimum/maximum exclusive.
  const min =
    schema.minimum ?? (typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : -1e6);
  const max = schema.maximum ?? (typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : 1e6);
  const open = (bound: 'exclusiveMinimum' | 'exclusiveMaximum', v: number) =>
    schema[bound] === true || typeof schema[bound] === 'number' ? v : undefined;
  const arb =
    schema.type === 'integer'
      ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
      : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return arb.filter((v) => v !== open('exclusiveMinimum', min) && v !== open('exclusiveMaximum', max));
}

/**
 * Values that satisfy a schema of the OpenAPI document, or come close (a field-name hint, a pattern
 * of the schema's own): the "valid-looking" bodies and parameters the mutations start from.
 */
export function schemaValues(components: Components) {
  const resolve = (ref: string): JsonSchema => {
    const name = ref.replace('#/components/schemas/', '');
    const schema = components[name];
    if (!schema) throw new Error(`the document has no schema ${ref}`);
    return schema;
  };

  const objectOf = (schema: JsonSchema, depth: number): fc.Arbitrary<unknown> => {
    // A property whose schema is `false` (JSON Schema 2020-12: no value at all) is left out.
    const properties = Object.fromEntries(
      Object.entries(schema.properties ?? {}).filter(([, sub]) => (sub as unknown) !== false),
    );
    const model = Object.fromEntries(
      Object.entries(properties).map(([key, sub]) => [key, arbitraryOf(sub, depth + 1, key)]),
    );
    const required = (schema.required ?? []).filter((key) => key in properties);
    const known = fc.record(model, { requiredKeys: required });
    const extra = schema.additionalProperties;
    // A map (no properties of its own, typed values): a few entries of that type.
    if (typeof extra === 'object' && Object.keys(properties).length === 0) {
      const values = Object.keys(extra).length === 0 ? anyJson : arbitraryOf(extra, depth + 1);
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), values, { maxKeys: 3 });
    }
    return known;
  };

  function arbitraryOf(schema: JsonSchema, depth = 0, name?: string): fc.Arbitrary<unknown> {
    // JSON Schema 2020-12's boolean schemas: `true` takes anything (`false` nothing: left out above).
    if (typeof schema === 'boolean') return anyJson;
    // OpenAPI 3.1's nullable: `type: [T, 'null']`.
    if (Array.isArray(schema.type)) {
      const [type = 'null'] = schema.type.filter((t) => t !== 'null');
      const base = plain({ ...schema, type }, depth, name);
      return schema.type.includes('null')
        ? fc.oneof({ arbitrary: base, weight: 9 }, { arbitrary: fc.constant(null), weight: 1 })
        : base;
    }
    if (schema.$ref)
      return fc.constant(null).chain(() => arbitraryOf(resolve(schema.$ref as string), depth + 1));
    const base = plain(schema, depth, name);
    return schema.nullable
      ? fc.oneof({ arbitrary: base, weight: 9 }, { arbitrary: fc.constant(null), weight: 1 })
      : base;
  }

  function plain(schema: JsonSchema, depth: number, name?: string): fc.Arbitrary<unknown> {
    if ('const' in schema) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    if (schema.allOf?.length === 1) return arbitraryOf(schema.allOf[0] as JsonSchema, depth, name);
    if (schema.allOf) {
      const merged: JsonSchema = { type: 'object', properties: {}, required: [] };
      for (const part of schema.allOf) {
        const s = part.$ref ? resolve(part.$ref) : part;
        Object.assign(merged.properties as object, s.properties);
        merged.required?.push(...(s.required ?? []));
      }
      return objectOf(merged, depth);
    }
    const branches = schema.oneOf ?? schema.anyOf;
    if (branches) {
      // Deep in a recursive schema only the first branch (a leaf, by the document's convention).
      const usable = depth > DEEP ? branches.slice(0, 1) : branches;
      return fc.oneof(...usable.map((b) => arbitraryOf(b, depth + 1, name)));
    }
    switch (schema.type) {
      case 'string':
        return stringOf(schema, name);
      case 'number':
      case 'integer':
        return numberOf(schema);
      case 'boolean':
        return fc.boolean();
      case 'array': {
        const minLength = schema.minItems ?? 0;
        const maxLength = Math.min(schema.maxItems ?? minLength + 3, minLength + 3);
        return fc.array(arbitraryOf(schema.items ?? {}, depth + 1), { minLength, maxLength });
      }
      case 'object':
        return objectOf(schema, depth);
      default:
        return anyJson;
    }
  }

  return { arbitraryOf, resolve };
}
