import { createAuthenticator } from '../services/accounts/authenticator.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { leaveSignalsToCaller } from '../src/db/embedded.ts';
import { DataDirectoryBusyError } from '../src/db/embedded-leftover.ts';
import { createLogger } from '../src/logger.ts';
import { service as composition } from './modules.ts';
import { startService } from './service.ts';

/** A start that cannot go on for a reason the user can fix: one line saying what and how, exit 1. */
function refuse(line: string): never {
  console.error(line);
  process.exit(1);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) refuse(error.message);
  throw error;
}

const logger = createLogger(config.LOG_LEVEL);
let service: Awaited<ReturnType<typeof startService>>;
try {
  service = await startService(config, logger, { composition, authenticator: createAuthenticator });
} catch (error) {
  // Another service (or one left running by a `kill` that did not reach it) holds the data directory.
  if (error instanceof DataDirectoryBusyError) {
    const owner = error.ownerPid
      ? ` (pid ${error.ownerPid}${error.postgresPid ? `, its PostgreSQL pid ${error.postgresPid}` : ''})`
      : '';
    refuse(
      `Cannot start: the data directory ${config.DATA_DIR} is in use by another running service${owner}. ` +
        `Stop it${error.ownerPid ? ` (kill ${error.ownerPid})` : ''}, or start this one with another DATA_DIR.`,
    );
  }
  throw error;
}
try {
  await service.app.listen({ port: config.PORT, host: config.HOST });
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
  // The database started: stop it before leaving.
  await service.close().catch(() => {});
  refuse(
    `Cannot start: port ${config.PORT} on ${config.HOST} is in use by another program. ` +
      'Stop it, or start this one with another PORT.',
  );
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  // Past the deadline, leave anyway: a stuck request must not keep the process alive forever.
  const deadline = setTimeout(() => {
    logger.error('shutdown deadline passed; exiting');
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS);
  deadline.unref();
  await service.close();
  logger.info('stopped');
  process.exit(0);
}
// From here on the service stops its embedded database itself, last, after requests drain.
leaveSignalsToCaller();
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
