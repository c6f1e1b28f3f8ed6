/**
 * A TEST DOUBLE of EventStoreDB: an in-process gRPC server speaking the EventStoreDB protocol, built on
 * the service definitions and message classes shipped inside `@eventstore/db-client`, so the real client
 * (and our adapter on it) runs unchanged against it. It serves exactly what the adapter calls; see
 * docs/eventstoredb.md for what passing against it proves and what it does not. Never import it from src/.
 *
 * A single-host `esdb://host:port?tls=false` connection does no gossip: the client's first call is
 * ServerFeatures/GetSupportedMethods, then Streams/Append and Streams/Read.
 */
import { grpc, ServerFeaturesService, StreamsService, SupportedMethod, SupportedMethods } from './grpc.ts';
import { type LogOptions, TransactionLog } from './log.ts';
import { streamsService } from './streams-service.ts';
import { writeStats, writeSystemEvents } from './system-events.ts';

export interface EsdbDouble {
  /** Connection string for the client: `esdb://127.0.0.1:<port>?tls=false`. */
  url: string;
  /** The double's log, for tests that need to look behind the protocol. */
  log: TransactionLog;
  /** Writes one system event of each kind into $all now, as the server does on its own. */
  writeSystemEvents(): void;
  stop(): Promise<void>;
}

export interface EsdbDoubleOptions extends LogOptions {
  /** How often a `$statsCollected` system event is written (the real default is 30 s). */
  statsIntervalMs?: number;
}

export async function startEsdbDouble(options: EsdbDoubleOptions = {}): Promise<EsdbDouble> {
  const log = new TransactionLog(options);
  writeSystemEvents(log);

  const server = new grpc.Server();
  server.addService(StreamsService, streamsService(log));
  server.addService(ServerFeaturesService, {
    getSupportedMethods(
      _call: unknown,
      callback: import('@grpc/grpc-js').sendUnaryData<InstanceType<typeof SupportedMethods>>,
    ) {
      callback(null, supportedMethods());
    },
  });

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const stats = setInterval(() => writeStats(log), options.statsIntervalMs ?? 200);
  stats.unref();

  return {
    url: `esdb://127.0.0.1:${port}?tls=false`,
    log,
    writeSystemEvents: () => writeSystemEvents(log),
    async stop() {
      clearInterval(stats);
      // Subscriptions never end on their own: cancel every call rather than wait for them.
      server.forceShutdown();
    },
  };
}

/** Append and Read only. Advertising BatchAppend would make the client use it, and it is not served. */
function supportedMethods() {
  const methods = ['Read', 'Append'].map((name) => {
    const method = new SupportedMethod();
    method.setServiceName('event_store.client.streams.Streams');
    method.setMethodName(name);
    return method;
  });
  const supported = new SupportedMethods();
  supported.setMethodsList(methods);
  supported.setEventStoreServerVersion('0.0.0-test-double');
  return supported;
}
