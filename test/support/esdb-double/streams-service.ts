/**
 * TEST DOUBLE of EventStoreDB's Streams service: Append (client-streaming) and Read (stream reads,
 * $all reads and $all subscriptions). Stream subscriptions, Delete, Tombstone and BatchAppend are not
 * served: the adapter does not call them, and ServerFeatures does not advertise BatchAppend, so the
 * client appends through Append.
 */
import { randomUUID } from 'node:crypto';
import {
  appendSuccess,
  appendWrongExpectedVersion,
  caughtUp,
  checkpoint,
  confirmation,
  expectedFromOptions,
  proposedFromMessage,
  readEvent,
  streamName,
  streamNotFound,
} from './encoding.ts';
import { type EventFilter, filterFromRequest } from './filter.ts';
import {
  type AppendReqMessage,
  type AppendRespMessage,
  grpc,
  type ReadReqMessage,
  type ReadRespMessage,
} from './grpc.ts';
import { compare, type Expected, type LogPosition, type ProposedEvent, type TransactionLog } from './log.ts';

type ReadCall = import('@grpc/grpc-js').ServerWritableStream<ReadReqMessage, ReadRespMessage>;
type AppendCall = import('@grpc/grpc-js').ServerReadableStream<AppendReqMessage, AppendRespMessage>;
type AppendCallback = import('@grpc/grpc-js').sendUnaryData<AppendRespMessage>;
type ReadOptions = NonNullable<ReturnType<ReadReqMessage['getOptions']>>;

const BACKWARDS = 1;

export function streamsService(log: TransactionLog) {
  return {
    append(call: AppendCall, callback: AppendCallback) {
      let stream: string | undefined;
      let expected: Expected = { kind: 'any' };
      const proposed: ProposedEvent[] = [];
      let failed = false;
      const fail = (details: string) => {
        if (failed) return;
        failed = true;
        callback({ code: grpc.status.INVALID_ARGUMENT, details });
      };
      call.on('data', (message: AppendReqMessage) => {
        try {
          if (message.hasOptions()) {
            const options = message.getOptions()!;
            stream = streamName(options.getStreamIdentifier());
            expected = expectedFromOptions(options);
          } else {
            if (stream === undefined) throw new Error('the first message must carry the options');
            proposed.push(proposedFromMessage(message));
          }
        } catch (error) {
          fail((error as Error).message);
        }
      });
      call.on('end', () => {
        if (failed) return;
        if (stream === undefined) return fail('no options received');
        const outcome = log.append(stream, expected, proposed);
        callback(
          null,
          outcome.ok
            ? appendSuccess(outcome.revision, outcome.position)
            : appendWrongExpectedVersion(expected, outcome.current),
        );
      });
      call.on('error', () => fail('append stream failed'));
    },

    read(call: ReadCall) {
      const options = call.request.getOptions();
      // An 'error' event is how a grpc-js server stream ends with a status; destroy() would send none.
      if (!options) return void call.emit('error', unimplemented('a read without options'));
      const run = options.hasSubscription()
        ? options.hasAll()
          ? subscribeAll(log, call, options)
          : Promise.reject(unimplemented('stream subscriptions'))
        : options.hasAll()
          ? readAll(log, call, options)
          : readStream(log, call, options);
      run.then(
        () => call.end(),
        (error: Error) => call.emit('error', error),
      );
    },
  };
}

function unimplemented(what: string) {
  return Object.assign(new Error(`the EventStoreDB double does not serve ${what}`), {
    code: grpc.status.UNIMPLEMENTED,
  });
}

/** Writes one reply; when the transport's buffer is full, waits for it to drain or for the call to end. */
async function send(call: ReadCall, message: ReadRespMessage): Promise<void> {
  if (call.write(message)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      for (const event of ['drain', 'close', 'cancelled']) call.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'close', 'cancelled']) call.on(event, done);
  });
}

function countOf(options: ReadOptions): number {
  const count = BigInt(options.getCount() || '0');
  return count > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(count);
}

async function readStream(log: TransactionLog, call: ReadCall, options: ReadOptions): Promise<void> {
  const streamOptions = options.getStream()!;
  const name = streamName(streamOptions.getStreamIdentifier());
  const events = log.readStream(name);
  if (!events || events.length === 0) return send(call, streamNotFound(name));
  const backwards = options.getReadDirection() === BACKWARDS;
  const count = countOf(options);
  const last = events.length - 1;
  let from: number;
  if (streamOptions.hasRevision()) from = Number(BigInt(streamOptions.getRevision()));
  else from = streamOptions.hasEnd() ? last : 0;
  if (backwards) {
    for (let i = Math.min(from, last), n = 0; i >= 0 && n < count; i--, n++) {
      await send(call, readEvent(events[i]!, false));
    }
  } else {
    for (let i = from, n = 0; i <= last && n < count; i++, n++)
      await send(call, readEvent(events[i]!, false));
  }
}

function positionOf(
  allOptions: NonNullable<ReturnType<ReadOptions['getAll']>>,
): LogPosition | 'start' | 'end' {
  if (allOptions.hasPosition()) {
    const p = allOptions.getPosition()!;
    return { commit: BigInt(p.getCommitPosition()), prepare: BigInt(p.getPreparePosition()) };
  }
  return allOptions.hasEnd() ? 'end' : 'start';
}

/** $all reads: forwards from a position inclusive, backwards from a position exclusive, as the server does. */
async function readAll(log: TransactionLog, call: ReadCall, options: ReadOptions): Promise<void> {
  const from = positionOf(options.getAll()!);
  const filter = filterFromRequest(options);
  const count = countOf(options);
  const all = log.all;
  let sent = 0;
  if (options.getReadDirection() === BACKWARDS) {
    let i = from === 'end' ? all.length - 1 : from === 'start' ? -1 : log.indexAtOrAfter(from) - 1;
    for (; i >= 0 && sent < count; i--) {
      if (filter && !filter.accepts(all[i]!)) continue;
      await send(call, readEvent(all[i]!, true));
      sent++;
    }
    return;
  }
  let i = from === 'start' ? 0 : from === 'end' ? all.length : log.indexAtOrAfter(from);
  for (; i < all.length && sent < count; i++) {
    if (filter && !filter.accepts(all[i]!)) continue;
    await send(call, readEvent(all[i]!, true));
    sent++;
  }
}

/**
 * A catch-up subscription to $all: confirmation, the events after the start position (exclusive, as
 * the real server skips an event equal to it), caught_up, then every new event until the client
 * cancels. One cursor over the log does both phases, so nothing falls between catch-up and live.
 */
async function subscribeAll(log: TransactionLog, call: ReadCall, options: ReadOptions): Promise<void> {
  const from = positionOf(options.getAll()!);
  const filter: EventFilter | undefined = filterFromRequest(options);
  let cursor = from === 'start' ? 0 : from === 'end' ? log.all.length : log.indexAtOrAfter(from);
  if (typeof from === 'object' && cursor < log.all.length && compare(log.all[cursor]!.position, from) === 0) {
    cursor++;
  }

  let active = true;
  let wake: (() => void) | undefined;
  const stopListening = log.onAppended(() => wake?.());
  const cancel = () => {
    active = false;
    wake?.();
  };
  call.on('cancelled', cancel);
  call.on('close', cancel);

  try {
    await send(call, confirmation(randomUUID()));
    let considered = 0;
    let caughtUpSent = false;
    while (active) {
      while (active && cursor < log.all.length) {
        const event = log.all[cursor++]!;
        considered++;
        if (!filter || filter.accepts(event)) await send(call, readEvent(event, true));
        if (filter && considered % filter.checkpointEvery === 0) await send(call, checkpoint(event.position));
      }
      if (!active) break;
      if (!caughtUpSent) {
        caughtUpSent = true;
        await send(call, caughtUp());
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (!active || cursor < log.all.length) resolve();
      });
      wake = undefined;
    }
  } finally {
    stopListening();
  }
}
