import type { Command } from 'commander';

/** Each area of the CLI registers its subcommands on the program. */
export type CommandModule = (program: Command) => void;

export const commandModules: CommandModule[] = [];
