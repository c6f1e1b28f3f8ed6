/**
 * TEST DOUBLE: the system events a real node writes into $all on its own, so that a client reading
 * $all meets them as it would against the real server. Three kinds matter to a reader that must skip
 * them: a `$metadata` event in a `$$`-stream, `$statsCollected` events written periodically into a
 * `$stats-` stream, and a `PersistentConfig1` event in `$persistentSubscriptionConfig`, a system stream
 * whose event type has no `$` (so a filter on the event type alone lets it through).
 */
import { randomUUID } from 'node:crypto';
import type { ProposedEvent, TransactionLog } from './log.ts';

const json = (value: unknown) => Uint8Array.from(Buffer.from(JSON.stringify(value), 'utf8'));

function systemEvent(type: string, data: unknown): ProposedEvent {
  return {
    id: randomUUID(),
    type,
    contentType: 'application/json',
    data: json(data),
    customMetadata: new Uint8Array(),
  };
}

/** One of each kind; the double writes them at start, and tests may write more between their own events. */
export function writeSystemEvents(log: TransactionLog): void {
  log.append('$$$scavenges', { kind: 'any' }, [systemEvent('$metadata', { $maxAge: 2592000 })]);
  log.append('$persistentSubscriptionConfig', { kind: 'any' }, [
    systemEvent('PersistentConfig1', { version: '2', updated: new Date().toISOString(), entries: [] }),
  ]);
  writeStats(log);
}

export function writeStats(log: TransactionLog): void {
  log.append('$stats-127.0.0.1:2113', { kind: 'any' }, [
    systemEvent('$statsCollected', {
      'proc-startTime': new Date().toISOString(),
      'proc-mem': process.memoryUsage().rss,
    }),
  ]);
}
