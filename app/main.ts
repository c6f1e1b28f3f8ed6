import { createAuthenticator } from '../services/accounts/authenticator.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { leaveSignalsToCaller } from '../src/db/embedded.ts';
import { createLogger } from '../src/logger.ts';
import { service as composition } from './modules.ts';
import { startService } from './service.ts';

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger(config.LOG_LEVEL);
const service = await startService(config, logger, { composition, authenticator: createAuthenticator });
await service.app.listen({ port: config.PORT, host: config.HOST });

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
