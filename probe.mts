import { EventStoreDBClient, jsonEvent } from '@eventstore/db-client';
import { startEsdbDouble } from './test/support/esdb-double/index.ts';
const d = await startEsdbDouble();
const c = EventStoreDBClient.connectionString(d.url);
const t = setTimeout(() => { console.log('TIMEOUT'); process.exit(1); }, 3000);
try { await c.deleteStream('x'); } catch (e) { console.log('delete error:', (e as Error).message); }
try { await c.appendToStream('x', [jsonEvent({ id: 'not-a-uuid', type: 'A', data: {} })]); console.log('appended non-uuid'); } catch (e) { console.log('append error:', (e as Error).message); }
const sub = c.subscribeToStream('x');
sub.on('error', (e) => { console.log('stream sub error:', (e as Error).message); });
sub.on('data', (x) => {console.log('data', x)});
sub.on('end', () => console.log('end'));
sub.on('close', () => console.log('close'));
