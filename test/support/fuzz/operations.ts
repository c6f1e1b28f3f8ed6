import type { JsonSchema } from './schema-values.ts';

/** One operation of the service: from the OpenAPI document, or a registered route it hides. */
export interface Operation {
  method: string;
  /** As the document writes it: `/api/tables/{tableId}`; a wildcard is `{*}`. */
  path: string;
  documented: boolean;
  params: { in: 'path' | 'query' | 'header'; name: string; schema: JsonSchema; required: boolean }[];
  /** The JSON body schema, when the document gives one. */
  body?: JsonSchema;
  /** Its 200 is a page (HTML, XML), not JSON: its 404 may be a page a reader can follow back from. */
  page: boolean;
}

interface DocOperation {
  parameters?: { in: string; name: string; schema?: JsonSchema; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}
export interface OpenApiDoc {
  paths: Record<string, Record<string, DocOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options']);

/** `/api/keys/:keyId` and `/docs/*` as the document would write them. */
export const documentPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');

/**
 * Every operation of the document, then every registered route it does not list (`/metrics`,
 * `/openapi.json`, the documentation UI): hidden routes take input too. HEAD is fastify's twin of
 * a GET and is left out.
 */
export function operationsOf(
  doc: OpenApiDoc,
  routes: readonly { method: string; url: string }[],
): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const ok = op.responses?.['200'] ?? op.responses?.['201'];
      out.push({
        method: method.toUpperCase(),
        path,
        documented: true,
        params: (op.parameters ?? []).flatMap((p) =>
          p.in === 'path' || p.in === 'query' || p.in === 'header'
            ? [{ in: p.in, name: p.name, schema: p.schema ?? {}, required: p.required === true }]
            : [],
        ),
        body: op.requestBody?.content?.['application/json']?.schema,
        page: !!ok && !ok.content?.['application/json'],
      });
    }
  }
  const listed = new Set(out.map((o) => `${o.method} ${o.path}`));
  for (const route of routes) {
    const path = documentPath(route.url);
    if (route.method === 'HEAD' || listed.has(`${route.method} ${path}`)) continue;
    listed.add(`${route.method} ${path}`);
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
    out.push({
      method: route.method,
      path,
      documented: false,
      params: names.map((name) => ({ in: 'path', name, schema: { type: 'string' }, required: true })),
      // The documentation UI serves pages and files; the others answer JSON or text.
      page: path.startsWith('/docs'),
    });
  }
  // Deletions last, so that the objects every other operation is fuzzed against still exist.
  return out.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}
