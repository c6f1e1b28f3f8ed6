-- Up Migration

-- A run row's result is durable here the moment its call returns (one short insert with the results
-- that came in together), and goes into the event log later, with many others in one append: the run's
-- driver frees the row's slot of the run's concurrency once this insert commits, so a crash repeats
-- only rows in their calls, while the log and every read model following it take a run's results in
-- large batches. A driver taking a run over appends what it finds here first. Rows leave once their
-- events are in the log.
CREATE TABLE run_row_results (
  run_id     text NOT NULL,
  row_id     text NOT NULL,
  -- JSON as text: a value with a NUL character (\u0000), which jsonb refuses, is stored all the same.
  result     text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, row_id)
);

-- Runs asked to stop. The stop command writes this before it answers; a driver starts rows only after a
-- statement that found no stop here (the same one that stores the results freeing their slots), so no
-- row starts after the stop's answer.
CREATE TABLE run_stops (
  run_id     text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE run_stops;
DROP TABLE run_row_results;
