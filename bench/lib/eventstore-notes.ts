/**
 * The "what limits each number" sentences of the report, kept apart from the code that measures. They
 * describe mechanisms checked with EXPLAIN and pg_stat_activity while writing this benchmark; revisit
 * them when the schema, append_events or the peer's version changes.
 */
export const EVENT_STORE_NOTES: string[] = [
  'Raw INSERT, one event per call: one commit (a WAL flush) per row. At concurrency 1 the flush and the ' +
    "round trip bound it; at 16 PostgreSQL's group commit lets one flush cover many commits, until the two " +
    'cores (shared by PostgreSQL, Node and whatever else runs) are busy.',
  'Ours, one event per call: one round trip (`append_events`), like raw. At concurrency 1 the gap to raw is ' +
    "the function's own work: it writes a second row (the stream's revision) and maintains three indexes " +
    'instead of one. The function sends no NOTIFY: a notifying transaction holds one server-wide lock through ' +
    'its WAL flush, which serialised every append and defeated group commit (an earlier version measured ' +
    '0.35x the peer at concurrency 16 because of it). Followers in the appending process are woken directly ' +
    'and other processes by one coalesced NOTIFY per process, sent after the commit.',
  'Ours, 100 events per call: the events row carries three B-tree indexes ((tx_id, position) as the primary ' +
    'key, event_id, (stream_name, stream_revision)) where the raw table has one, and the stream revision ' +
    'upsert; no single index dominates (each cost roughly 5-15 % of a batch insert in a probe).',
  "Peer appends: Emmett's `appendToStream` takes three round trips (BEGIN, `emt_append_to_stream`, COMMIT) " +
    'on one pooled connection, and builds the SQL text with escaped literals on every call (no bind ' +
    'parameters), which costs most with 100 events per call; its tables are list-partitioned.',
  'Ours, full read: one index range scan per page on (tx_id, position) (EXPLAIN: an Index Scan using ' +
    '`events_pkey` with the row comparison and the snapshot xmin as index conditions, under 1 ms per ' +
    '1,000-event page); the rest is Node: parsing the jsonb (the raw reader pays that too) and, ours alone, ' +
    'validating every event against its registered schema and building bigint positions.',
  'Raw paging by `position > $1` is the fastest reader and correct on a quiet log, but while writers are ' +
    'appending it passes positions whose transactions commit later and never returns them (its "missing" ' +
    'count in the live table).',
  "Peer reads: Emmett's message table has no index on (transaction_id, global_position) (its key is " +
    '(stream_id, stream_position, partition, is_archived)), so each page scans and sorts the whole active ' +
    'partition and a full read slows down as the log grows. Its checkpoint is the last global_position of a ' +
    'page ordered by transaction_id, so where transaction order and position order disagree at a page ' +
    'boundary it re-reads some events (returned > distinct) and skips others, during and after the writes.',
];
