import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) spent so far by the parts of a benchmark, where this machine tells. */
export interface CpuSnapshot {
  /** This process, every thread of it (JavaScript, garbage collection, libuv). */
  node: number;
  /** Another process of the benchmark's own (a fake server), when its pid was given. */
  child?: number;
  /** Every PostgreSQL process on this machine: the server of an embedded or local run. */
  postgres?: number;
}

const TICKS_PER_SECOND = 100;

/** utime + stime of /proc/<pid>/stat, in seconds; undefined where there is no /proc (not Linux). */
function procCpu(pid: number | string): { name: string; seconds: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    return {
      name: stat.slice(stat.indexOf('(') + 1, close),
      seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    };
  } catch {
    return undefined;
  }
}

function postgresCpu(): number | undefined {
  let dirs: string[];
  try {
    dirs = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  let total = 0;
  for (const pid of dirs) {
    const proc = procCpu(pid);
    if (proc?.name === 'postgres') total += proc.seconds;
  }
  return total;
}

export function cpuSnapshot(childPid?: number): CpuSnapshot {
  const own = process.cpuUsage();
  return {
    node: (own.user + own.system) / 1e6,
    child: childPid === undefined ? undefined : procCpu(childPid)?.seconds,
    postgres: postgresCpu(),
  };
}

/** What each part spent between two snapshots (a PostgreSQL backend that exited in between is lost). */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot {
  const diff = (a?: number, b?: number) => (a === undefined || b === undefined ? undefined : b - a);
  return {
    node: after.node - before.node,
    child: diff(before.child, after.child),
    postgres: diff(before.postgres, after.postgres),
  };
}

/**
 * CPU seconds spent so far by each process of one PostgreSQL server (its backends and background
 * processes, as pg_stat_activity lists them): unlike `postgres` of a snapshot, not the other servers
 * of a shared machine. Compare two readings with `serverCpuSpent`.
 */
export async function serverCpu(db: {
  query<R>(sql: string): Promise<{ rows: R[] }>;
}): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity');
  const byPid = new Map<number, number>();
  for (const { pid } of rows) {
    const proc = procCpu(pid);
    if (proc) byPid.set(pid, proc.seconds);
  }
  return byPid;
}

/**
 * What the server's processes spent between two readings: those alive at the second, from the first
 * reading (or from their start). A process that exited in between is not counted: a lower bound.
 */
export function serverCpuSpent(before: Map<number, number>, after: Map<number, number>): number | undefined {
  if (after.size === 0) return undefined;
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** CPU seconds so far of this process and of each process of one PostgreSQL server (`serverCpu`). */
export interface ProcessAndServerCpu {
  node: number;
  postgres: Map<number, number>;
}

/** Reads this process's CPU, then the server's; compare two readings with `processAndServerSpent`. */
export async function processAndServerCpu(db: {
  query<R>(sql: string): Promise<{ rows: R[] }>;
}): Promise<ProcessAndServerCpu> {
  return { node: cpuSnapshot().node, postgres: await serverCpu(db) };
}

/** CPU seconds this process and the server spent between two readings (the server's a lower bound). */
export function processAndServerSpent(
  before: ProcessAndServerCpu,
  after: ProcessAndServerCpu,
): { node: number; postgres: number | undefined } {
  return { node: after.node - before.node, postgres: serverCpuSpent(before.postgres, after.postgres) };
}
