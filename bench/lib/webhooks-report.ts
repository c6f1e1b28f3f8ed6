import { HOLD_UP_TO } from '../../processes/webhooks/attempt-log.ts';
import {
  CLAIMED_PER_SUBSCRIPTION,
  PER_SUBSCRIPTION_CONCURRENCY,
} from '../../src/domain/webhooks/messages.ts';
import { median } from './bench-app.ts';
import type { BenchServer } from './postgres.ts';
import { markdownTable, measuredOn, textTable, verdict } from './report.ts';
import { percentile } from './timing.ts';

// From the CPU columns and profiles of this script's runs: what each side's rate is made of.
const WHAT_LIMITS_IT =
  "What limits each. The plain client is bound by the POSTs' round trips on loopback, 4 at a time, and its CPU is the HTTP alone (client and receiver share this process). The service sends the same 4 at a time from 128 of the subscription's messages claimed ahead (sticky claims: one process holds a subscription's messages, so its 4 send slots bound every process's POSTs), and its database work is per batch, not per message: an attempt that succeeded is held while more of its subscription's messages are being sent, up to 32 of them go into one WebhookAttemptsRecorded (one append, one read by the projections, one history batch of two statements), and their work items are settled in the transaction of the next sticky claim (migration 0023: one round trip and one commit for both). That is 0.4-0.55 statements a message where it was 1.4-1.6 (appends had left with 2-3 attempts, claims with about 6 messages), and 0.2-0.3 ms of PostgreSQL CPU a message where it was 0.45-0.6; the settle with its sticky claim is the largest statement left, about 0.1 ms a message. With 64 claimed ahead the send slots stood idle while the first 32 were recorded, settled and claimed again (12 % of a round at a load of 6.7; 2 % with 128). In this process the guarded HTTP client (undici, one timer and one abort controller per request, an IP literal's SSRF verdict remembered) costs about what fetch costs the plain client: 0.3-0.55 ms of CPU a message on either side, the receiver included. So neither the service's process nor its PostgreSQL is the slower part any more; on a shared machine the ratio still moves with the load, since the service needs two processes scheduled (itself and PostgreSQL) where the plain client needs one. An untimed pass of each side comes first: the first timed round used to pay the JIT, the connections and the statements' plans alone. Earlier designs: claim, POST, record and settle in series within each of the 4 slots, 0.11x-0.14x; group commits with a stream per attempt, 0.36x; one event per batch of the attempts that finished together, 0.59x on a quiet machine (1.1 ms of CPU a message in all).";
const BEHIND =
  "At 200 events/s the deliveries fall behind (they run at about 100 messages/s here), so the latency is the backlog's: the p50 and p99 say how far behind the last messages were, not the path of one message.";

/** Milliseconds of CPU a message: this process (service, receiver, client), and PostgreSQL's processes. */
export const cpuPerMessage = (spent: { node: number; postgres?: number }, messages: number) =>
  ((spent.node * 1000) / messages).toFixed(2) +
  (spent.postgres === undefined ? '' : `; ${((spent.postgres * 1000) / messages).toFixed(2)}`);

/** What bench/webhooks.ts measured, and the knobs its prose names. */
export interface WebhooksResults {
  settings: {
    messages: number;
    rounds: number;
    warmUp: number;
    latencySeconds: number;
    eventsPerSecond: number;
  };
  /** Messages a second of each side per round, and its CPU a message as `cpuPerMessage` prints it. */
  ours: number[];
  plain: number[];
  cpuOurs: string[];
  cpuPlain: string[];
  /** Events of the latency phase, and the event-to-receipt milliseconds of their messages, sorted. */
  events: number;
  latencies: number[];
  /** Seconds the pacing of the latency phase ended late. */
  lateBy: number;
}

type Table = [headers: string[], rows: string[][]];

const ratio = (r: WebhooksResults) => verdict(median(r.ours) / median(r.plain), 0.7);

function throughputTable(r: WebhooksResults): Table {
  return [
    [
      'deliveries to one subscription',
      'messages/s (median)',
      'rounds',
      'CPU ms/message, per round (this process; its PostgreSQL server)',
    ],
    [
      [
        'the service: reactor-enqueued, workers deliver',
        median(r.ours).toFixed(0),
        r.ours.map((v) => v.toFixed(0)).join(', '),
        r.cpuOurs.join(' / '),
      ],
      [
        `plain client: fetch, ${PER_SUBSCRIPTION_CONCURRENCY} at a time`,
        median(r.plain).toFixed(0),
        r.plain.map((v) => v.toFixed(0)).join(', '),
        r.cpuPlain.join(' / '),
      ],
    ],
  ];
}

function latencyTable(r: WebhooksResults): Table {
  return [
    ['event to delivery at 200 events/s', 'events', 'p50 ms', 'p99 ms'],
    [
      [
        'one-row inserts, row.created to its receipt',
        String(r.events),
        String(percentile(r.latencies, 50)),
        String(percentile(r.latencies, 99)),
      ],
    ],
  ];
}

/** What the terminal shows. */
export function webhooksText(r: WebhooksResults): string {
  return [
    textTable(...throughputTable(r)),
    `service / plain: ${ratio(r)}`,
    textTable(...latencyTable(r)),
  ].join('\n\n');
}

/** The body of the `## Webhooks` section of docs/benchmarks.md. */
export function webhooksMarkdown(r: WebhooksResults, server: BenchServer, loadAtStart: string): string {
  const { settings } = r;
  return [
    measuredOn(server, loadAtStart),
    '',
    `**Throughput.** ${settings.messages.toLocaleString('en-US')} row.created messages to one subscription whose ` +
      'receiver (loopback, Node http) answers 200 at once. The messages are enqueued first (inserted rows, the ' +
      'reactor turning them into work items); the time runs from starting the workers until the receiver has ' +
      `them all: claims under leases, the subscription's ${PER_SUBSCRIPTION_CONCURRENCY} attempts at a time, ` +
      `signing, the attempts recorded as events (up to ${HOLD_UP_TO} an event), the items settled with the next claim (${CLAIMED_PER_SUBSCRIPTION} messages claimed ahead, ${PER_SUBSCRIPTION_CONCURRENCY} being sent). The plain client POSTs the same bodies, ` +
      `signed the same way, with fetch, ${PER_SUBSCRIPTION_CONCURRENCY} at a time, recording nothing. ` +
      `${settings.rounds} rounds, each pass on new messages, after an untimed pass of ${settings.warmUp.toLocaleString('en-US')} on each side.`,
    '',
    markdownTable(...throughputTable(r)),
    '',
    `Service / plain client: **${ratio(r)}**.`,
    '',
    WHAT_LIMITS_IT,
    '',
    `**Latency.** One-row inserts paced at ${settings.eventsPerSecond} a second for ${settings.latencySeconds} s ` +
      `(the pacing ended ${r.lateBy.toFixed(1)} s late), each message timed from its event's time (the row's ` +
      'createdAt) to its receipt: the append, the reactor enqueuing with its checkpoint, the workers woken by ' +
      'the commit, the attempt.',
    '',
    markdownTable(...latencyTable(r)),
    ...(percentile(r.latencies, 50) > 1000 ? ['', BEHIND] : []),
  ].join('\n');
}
