import { Ajv } from 'ajv';
import * as assert from 'uvu/assert';

/**
 * OpenAPI 3.0 schema objects follow JSON Schema draft 4 in places (a boolean `exclusiveMinimum`);
 * lowered to draft 7 they compile with ajv. A numeric one in a 3.0 document is itself invalid.
 */
function lowerSchema(schema: unknown, version: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => lowerSchema(s, version));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = lowerSchema(value, version);
  if (version.startsWith('3.0')) {
    for (const [exclusive, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (!(exclusive in out)) continue;
      assert.type(out[exclusive], 'boolean', `OpenAPI 3.0 wants a boolean ${exclusive}`);
      if (out[exclusive] === true) out[exclusive] = out[bound];
      else delete out[exclusive];
      if (out[exclusive] !== undefined) delete out[bound];
    }
  }
  return out;
}

export function compileSchema(ajv: Ajv, schema: unknown, version: string) {
  return ajv.compile(lowerSchema(schema, version) as object);
}

interface Media {
  schema?: object;
}
interface Operation {
  responses?: Record<string, { description?: unknown; content?: Record<string, Media> }>;
  parameters?: { in?: string; name?: unknown; required?: unknown }[];
  requestBody?: { content?: Record<string, Media> };
}
interface OpenApiDoc {
  openapi: string;
  info?: { title?: unknown; version?: unknown };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, object> };
}

/** Structural checks of OpenAPI 3.0/3.1, plus every schema in it compiling as JSON Schema. */
export function assertOpenApi3(doc: OpenApiDoc): void {
  assert.match(String(doc.openapi), /^3\.[01]\.\d+$/);
  assert.type(doc.info?.title, 'string');
  assert.type(doc.info?.version, 'string');
  assert.type(doc.paths, 'object');
  const ajv = new Ajv({ strict: false, allErrors: true });
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {}))
    ajv.addSchema(lowerSchema(schema, doc.openapi) as object, `#/components/schemas/${name}`);
  const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
  for (const [path, item] of Object.entries(doc.paths)) {
    assert.ok(path.startsWith('/'), `path ${path}`);
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters') continue;
      assert.ok(methods.has(method), `${path}: unknown method ${method}`);
      const responses = Object.entries(op.responses ?? {});
      assert.ok(responses.length > 0, `${method} ${path} has no responses`);
      for (const [code, response] of responses) {
        assert.match(code, /^([1-5]\d\d|[1-5]XX|default)$/);
        assert.type(response.description, 'string', `${method} ${path} ${code} needs a description`);
        for (const media of Object.values(response.content ?? {}))
          if (media.schema) compileSchema(ajv, media.schema, doc.openapi);
      }
      for (const p of op.parameters ?? []) {
        assert.ok(
          ['path', 'query', 'header', 'cookie'].includes(String(p.in)),
          `${path}: parameter in ${p.in}`,
        );
        assert.type(p.name, 'string');
        if (p.in === 'path') assert.is(p.required, true, `${path}: path parameters are required`);
      }
      for (const media of Object.values(op.requestBody?.content ?? {}))
        if (media.schema) compileSchema(ajv, media.schema, doc.openapi);
    }
  }
}
