-- Up Migration

-- Where each projection has got to, written in the same transaction as the rows it built.
CREATE TABLE projection_checkpoints (
  name            text PRIMARY KEY,
  version         integer NOT NULL,
  commit_position bigint NOT NULL DEFAULT -1,
  prepare_position bigint NOT NULL DEFAULT -1,
  events_applied  bigint NOT NULL DEFAULT 0,
  state           text NOT NULL DEFAULT 'catching_up',
  last_error      text,
  failed_event_id text,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Operator actions on projections (retry, skip, rebuild): who, when, which event.
CREATE TABLE projection_audit (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  projection text NOT NULL,
  action     text NOT NULL,
  event_id   text,
  actor      text NOT NULL,
  detail     jsonb NOT NULL DEFAULT '{}',
  at         timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE projection_audit;
DROP TABLE projection_checkpoints;
