/**
 * The gRPC double of EventStoreDB on its own, for trying the service against it by hand
 * (docs/eventstoredb.md, "Running the service against the double"):
 *
 *   npx tsx test/support/esdb-double-server.ts
 *
 * It prints the connection string to put in EVENTSTORE_URL and runs until Ctrl-C. Everything it holds
 * is in memory and gone when it stops. A test double, not a server: never use it for real data.
 */
import { startEsdbDouble } from './esdb-double/index.ts';

const double = await startEsdbDouble();
console.log(`EventStoreDB test double listening; EVENTSTORE_URL='${double.url}'`);
console.log('in memory only: its events are gone when it stops (Ctrl-C)');
const stop = () => {
  console.log(`stopping; ${double.log.all.length} record(s) in $all are dropped`);
  void double.stop().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
