import type { Command } from 'commander';
import { registerAccountCommands } from './account.ts';
import { registerAdminCommands } from './admin.ts';
import { registerColumnCommands } from './columns.ts';
import { registerKeyCommands } from './keys.ts';
import { registerLeadCommands } from './leads.ts';
import { registerLinkedinCommands } from './linkedin.ts';
import { registerMcpCommands } from './mcp.ts';
import { registerPromptCommands } from './prompts.ts';
import { registerRowCommands } from './rows.ts';
import { registerRunCommands } from './runs.ts';
import { registerSearchCommands } from './search.ts';
import { registerSecretCommands } from './secrets.ts';
import { registerSequenceCommands } from './sequences.ts';
import { registerTableCommands } from './tables.ts';
import { registerTaskCommands } from './tasks.ts';
import { registerWebhookCommands } from './webhooks.ts';

/** Each area of the CLI registers its subcommands on the program. */
export type CommandModule = (program: Command) => void;

export const commandModules: CommandModule[] = [
  registerAccountCommands,
  registerKeyCommands,
  registerAdminCommands,
  registerTableCommands,
  registerColumnCommands,
  registerSecretCommands,
  registerPromptCommands,
  registerRowCommands,
  registerLeadCommands,
  registerSequenceCommands,
  registerTaskCommands,
  registerWebhookCommands,
  registerRunCommands,
  registerSearchCommands,
  registerLinkedinCommands,
  registerMcpCommands,
];
