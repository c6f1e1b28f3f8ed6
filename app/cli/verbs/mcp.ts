import type { Command } from 'commander';
import { serveStdio } from '../../mcp/stdio.ts';
import { CliError, UsageError } from '../errors.ts';
import { type GlobalOptions, resolveConnection } from '../http.ts';

/**
 * `stk mcp`: an MCP server over stdio for an agent host (Claude Desktop, Cursor, VS Code), its tools
 * the API's operations called with this CLI's key (docs/mcp.md). stdout is the protocol's: nothing
 * else is printed there.
 */
export function registerMcpCommands(program: Command): void {
  program
    .command('mcp')
    .description(
      "Serve the API to an agent host as an MCP server over stdio (tools = the API's operations; docs/mcp.md)",
    )
    .action(async (_options: unknown, command: Command) => {
      const connection = await resolveConnection(command.optsWithGlobals<GlobalOptions>());
      if (!connection.apiKey)
        throw new UsageError('no API key: pass --api-key, set STK_API_KEY, or run `stk login`');
      try {
        await serveStdio(connection.baseUrl, connection.apiKey);
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        throw new CliError(
          `stk mcp: ${cause ? `cannot reach ${connection.baseUrl}: ${cause}` : (error as Error).message}`,
        );
      }
    });
}
