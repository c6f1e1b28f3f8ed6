import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { EventStoreBenchSettings } from './bench-event.ts';
import type { ReadCount } from './log-reading.ts';
import type { Measurement } from './timing.ts';

/**
 * The peer event store runs in its own process (its database layer replaces pg's type parsers for the
 * whole process). The parent sends one JSON command per line on stdin and the peer answers on stdout,
 * one JSON message per line after a marker, so anything else a library prints there is passed through
 * instead of breaking the protocol. Driving the peer command by command lets the parent interleave its
 * measurements with ours, so slow drift on a shared machine hits both sides alike.
 */
const MARKER = '@@bench ';
const CONFIG_ENV = 'STK_BENCH_PEER_CONFIG';

export interface PeerConfig {
  settings: EventStoreBenchSettings;
  /** An empty database for the append measurements. */
  appendUrl: string;
  /** An empty database for the read measurements. */
  readUrl: string;
}

export type PeerCommand = { kind: 'append'; scenario: string; round: number } | { kind: 'reads' };

export type PeerMessage =
  | { kind: 'ready' }
  | { kind: 'append'; scenario: string; result: Measurement }
  | { kind: 'fill'; written: number; seconds: number }
  | { kind: 'read'; mode: 'live' | 'full'; result: ReadCount }
  | { kind: 'done' }
  | { kind: 'error'; message: string };

function send(message: PeerMessage): void {
  process.stdout.write(`${MARKER}${JSON.stringify(message)}\n`);
}

/**
 * In the peer: reads the configuration, runs `open`, then answers commands one at a time until the
 * parent closes stdin, and runs `close`.
 */
export async function servePeer(handlers: {
  open(config: PeerConfig): Promise<void>;
  handle(command: PeerCommand, reply: (message: PeerMessage) => void): Promise<void>;
  close(): Promise<void>;
}): Promise<void> {
  const raw = process.env[CONFIG_ENV];
  if (!raw) throw new Error(`${CONFIG_ENV} is not set: this script is started by bench/eventstore.ts`);
  const failed = (error: unknown) =>
    send({ kind: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  try {
    await handlers.open(JSON.parse(raw) as PeerConfig);
    send({ kind: 'ready' });
    for await (const line of createInterface({ input: process.stdin })) {
      try {
        await handlers.handle(JSON.parse(line) as PeerCommand, send);
        send({ kind: 'done' });
      } catch (error) {
        failed(error);
      }
    }
  } catch (error) {
    failed(error);
    process.exitCode = 1;
  } finally {
    await handlers.close();
  }
}

/** In the parent: the running peer process. */
export class PeerProcess {
  private readonly inbox: PeerMessage[] = [];
  private waiter?: () => void;
  private exited = false;

  private constructor(private readonly child: ChildProcessByStdio<Writable, Readable, null>) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith(MARKER)) {
        process.stderr.write(`[peer] ${line}\n`);
        return;
      }
      this.inbox.push(JSON.parse(line.slice(MARKER.length)) as PeerMessage);
      this.waiter?.();
    });
    child.once('close', () => {
      this.exited = true;
      this.waiter?.();
    });
  }

  static async start(script: string, config: PeerConfig): Promise<PeerProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, [CONFIG_ENV]: JSON.stringify(config) },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const peer = new PeerProcess(child);
    await peer.until('ready');
    return peer;
  }

  /** Sends one command and returns what the peer reported for it. */
  async request(command: PeerCommand): Promise<PeerMessage[]> {
    this.child.stdin.write(`${JSON.stringify(command)}\n`);
    return this.until('done');
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    while (!this.exited) await new Promise<void>((resolve) => (this.waiter = resolve));
  }

  private async until(kind: 'ready' | 'done'): Promise<PeerMessage[]> {
    const collected: PeerMessage[] = [];
    for (;;) {
      const message = this.inbox.shift();
      if (message?.kind === 'error') throw new Error(`peer: ${message.message}`);
      if (message?.kind === kind) return collected;
      if (message) {
        collected.push(message);
        continue;
      }
      if (this.exited) throw new Error('peer process exited early');
      await new Promise<void>((resolve) => (this.waiter = resolve));
      this.waiter = undefined;
    }
  }
}
