import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { EventStoreBenchSettings } from './bench-event.ts';
import type { ReadCount } from './log-reading.ts';
import type { Measurement } from './timing.ts';

/**
 * The peer event store runs in its own process (its database layer replaces pg's type parsers for the
 * whole process) and reports over stdout, one JSON message per line after a marker, so anything else a
 * library prints there is passed through instead of breaking the protocol.
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

export type PeerMessage =
  | { kind: 'append'; scenario: string; result: Measurement }
  | { kind: 'fill'; written: number; seconds: number }
  | { kind: 'read'; mode: 'live' | 'full'; result: ReadCount }
  | { kind: 'error'; message: string };

export interface PeerResults {
  appends: Map<string, Measurement>;
  written?: number;
  live?: ReadCount;
  full?: ReadCount;
  error?: string;
}

/** In the peer: the configuration its parent gave it. */
export function peerConfig(): PeerConfig {
  const raw = process.env[CONFIG_ENV];
  if (!raw) throw new Error(`${CONFIG_ENV} is not set: this script is started by bench/eventstore.ts`);
  return JSON.parse(raw) as PeerConfig;
}

/** In the peer: one message to the parent. */
export function emit(message: PeerMessage): void {
  process.stdout.write(`${MARKER}${JSON.stringify(message)}\n`);
}

/** In the parent: runs the peer script to its end, collecting what it reports. */
export async function runPeer(script: string, config: PeerConfig): Promise<PeerResults> {
  const results: PeerResults = { appends: new Map() };
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, [CONFIG_ENV]: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (!line.startsWith(MARKER)) {
      process.stderr.write(`[peer] ${line}\n`);
      return;
    }
    const message = JSON.parse(line.slice(MARKER.length)) as PeerMessage;
    if (message.kind === 'append') results.appends.set(message.scenario, message.result);
    else if (message.kind === 'fill') results.written = message.written;
    else if (message.kind === 'read') results[message.mode] = message.result;
    else results.error = message.message;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) results.error ??= `peer process exited with code ${code}`;
  return results;
}
