import { readFile, readlink, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';

const STOP_WAIT_MS = 30_000;

/** Whether a process with this pid exists (ours or not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process's command line, or undefined where /proc cannot tell (not Linux, or it is gone). */
async function commandLine(pid: number): Promise<string[] | undefined> {
  const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return raw?.split('\0').filter(Boolean);
}

async function parentOf(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
  const ppid = stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) : Number.NaN;
  return Number.isInteger(ppid) ? ppid : undefined;
}

/** True when `pid` is a Node.js process: a service that still owns the server it started. */
async function isNode(pid: number): Promise<boolean> {
  const exe = await readlink(`/proc/${pid}/exe`).catch(() => undefined);
  const name = basename(exe ?? (await commandLine(pid))?.[0] ?? '');
  return name === basename(process.execPath) || /^node(js)?$/.test(name);
}

/**
 * The data directory's PostgreSQL belongs to another running process (a service started earlier and
 * still running): a second server there is refused. `main.ts` says so in one line, with what to do.
 */
export class DataDirectoryBusyError extends Error {
  constructor(
    readonly databaseDir: string,
    /** The PostgreSQL running there, and the process that started it, where they are known. */
    readonly postgresPid?: number,
    readonly ownerPid?: number,
  ) {
    super(
      `The data directory ${databaseDir} is in use by a running PostgreSQL` +
        (postgresPid ? ` (pid ${postgresPid})` : '') +
        ` of another process${ownerPid ? ` (pid ${ownerPid})` : ''}.`,
    );
  }
}

/**
 * A service killed outright (SIGKILL, out of memory) leaves the PostgreSQL it started running on its
 * data directory, and a new server there refuses to start. Before starting: stop such a leftover
 * (a fast shutdown, what `pg_ctl stop -m fast` sends) and drop a `postmaster.pid` whose process is
 * gone or is not a PostgreSQL of this directory. A server whose parent service still runs is not
 * touched: two services on one data directory is an error.
 */
export async function clearLeftoverServer(databaseDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  const content = await readFile(pidFile, 'utf8').catch(() => undefined);
  const pid = Number(content?.split('\n')[0]);
  if (!content || !Number.isInteger(pid) || pid <= 0) return;
  if (!alive(pid)) {
    log(`removing a stale postmaster.pid (pid ${pid} is gone)`);
    await rm(pidFile, { force: true });
    return;
  }
  const args = await commandLine(pid);
  // Without /proc nothing more can be told apart: PostgreSQL's own lock-file check decides.
  if (!args) return;
  if (!args.includes(databaseDir)) {
    log(`removing a stale postmaster.pid (pid ${pid} is another process now)`);
    await rm(pidFile, { force: true });
    return;
  }
  const parent = await parentOf(pid);
  if (parent !== undefined && parent > 1 && (await isNode(parent))) {
    throw new DataDirectoryBusyError(databaseDir, pid, parent);
  }
  log(`stopping a PostgreSQL (pid ${pid}) left running on ${databaseDir} by an earlier run`);
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + STOP_WAIT_MS;
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`The PostgreSQL left running (pid ${pid}) did not stop.`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
