/** A JSON Schema as z.toJSONSchema writes it, the parts a sample needs. */
interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
}

const SAMPLE_TEXT: Record<string, string> = {
  tableId: 'tbl_0000000000000000000a',
  columnId: 'col_0000000000000000000a',
  rowId: 'row_0000000000000000000a',
  subscriptionId: 'wh_00000000000000000000',
};

/**
 * Sample data built from a catalogue entry's JSON Schema (a test send): every property present,
 * strings named after their property (ids in their form), numbers 1, arrays of one item.
 */
export function sampleOf(schema: JsonSchema, name = 'value', at = new Date(0)): unknown {
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf)
    return sampleOf(schema.anyOf.find((s) => s.type !== 'null') ?? schema.anyOf[0]!, name, at);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, s]) => [key, sampleOf(s, key, at)]),
      );
    case 'array':
      return schema.items ? [sampleOf(schema.items, name, at)] : [];
    case 'string':
      return SAMPLE_TEXT[name] ?? (name.endsWith('At') ? at.toISOString() : `sample ${name}`);
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}
