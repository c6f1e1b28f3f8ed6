#!/usr/bin/env node
// The `stk` command: runs the TypeScript CLI through tsx's loader (no build step). It calls the CLI
// itself rather than leaving main.ts to guess from process.argv whether it is the entry point: that
// guess failed whenever stk was started through a symbolic link (npm link, npm install -g, npx).
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../app/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
