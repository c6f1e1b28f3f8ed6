import type { Feature } from '../../src/feature.ts';
import { mcpRoutes } from '../mcp/http-route.ts';

/**
 * MCP: the service's routes as the tools of a Model Context Protocol server, at /mcp over
 * Streamable HTTP (app/mcp/, docs/mcp.md). It owns no stream and no read model: every tool call is a
 * call of the route it names. It lives in the composition root because it is made of every other
 * feature's routes, as the `stk` CLI is.
 */
export const mcpFeature: Feature = {
  name: 'mcp',
  streams: [],
  commands: [mcpRoutes],
  queries: [],
  projections: [],
};
