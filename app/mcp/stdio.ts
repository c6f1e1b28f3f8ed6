import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { type Caller, fetchCaller } from './caller.ts';
import { createMcpServer } from './server.ts';
import { catalogOf, type OpenApiDocument } from './tools.ts';

/** What `stk mcp` needs of the service before it serves: its document, and the key's scopes. */
async function ready(caller: Caller): Promise<{ doc: OpenApiDocument; scopes: Set<string> }> {
  const [doc, me] = await Promise.all([
    caller({ method: 'GET', url: '/openapi.json' }),
    caller({ method: 'GET', url: '/api/me' }),
  ]);
  if (me.status !== 200) {
    const detail = (me.body as { detail?: string } | undefined)?.detail ?? `HTTP ${me.status}`;
    throw new Error(`the service refused the API key: ${detail}`);
  }
  if (doc.status !== 200) throw new Error(`the service did not serve /openapi.json (HTTP ${doc.status})`);
  const scopes = (me.body as { keyMetadata: { scopes: string[] } }).keyMetadata.scopes;
  return { doc: doc.body as OpenApiDocument, scopes: new Set(scopes) };
}

/**
 * `stk mcp`: the MCP server in the CLI's process, over stdio, its tools calling the service over HTTP
 * with the key (app/mcp/server.ts). Resolves when the host closes stdin.
 */
export async function serveStdio(baseUrl: string, apiKey: string): Promise<void> {
  const caller = fetchCaller(baseUrl, apiKey);
  const { doc, scopes } = await ready(caller);
  const server = createMcpServer({ caller, catalog: catalogOf(doc), scopes });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await server.connect(transport);
  const end = () => void server.close();
  process.stdin.once('end', end);
  process.stdin.once('close', end);
  await closed;
}
