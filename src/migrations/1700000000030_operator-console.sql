-- Up Migration

-- The operator console (/admin, issue 36). Not read models: a rebuild must not sign anybody out or
-- forget a credential, and none of it is a business fact of the log.

-- Operators: named people who may use the console. Their credential is issued by `stk admin operators
-- issue` only (never over HTTP), shown once, and kept as its SHA-256, as an API key's secret is.
CREATE TABLE operators (
  id            text PRIMARY KEY,
  name          text NOT NULL,
  secret_hash   text NOT NULL,
  issued_by     text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_sign_in  timestamptz,
  revoked_at    timestamptz
);
-- One live credential per name: issuing again for a name revokes the one before.
CREATE UNIQUE INDEX operators_live_name ON operators (name) WHERE revoked_at IS NULL;

-- Console sessions: the cookie holds a random token, the table its SHA-256. Each has its own CSRF
-- token (a synchronizer token: every state-changing request must send it back) and an end.
CREATE TABLE operator_sessions (
  token_hash   text PRIMARY KEY,
  operator_id  text NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
  csrf_token   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
CREATE INDEX operator_sessions_expiry ON operator_sessions (expires_at);

-- Each projection's lag, sampled every few seconds by the service (processes/console/lag-sampler.ts)
-- for the console's lag chart over the last hour; older samples are deleted as new ones come. The
-- time is truncated to the sampling period, so two processes sampling at once write one row.
CREATE TABLE projection_lag_samples (
  projection   text NOT NULL,
  at           timestamptz NOT NULL,
  lag_events   integer NOT NULL,
  lag_seconds  double precision NOT NULL,
  PRIMARY KEY (projection, at)
);
CREATE INDEX projection_lag_samples_at ON projection_lag_samples (at);

-- The console's event log filters by correlation id (every event one request caused, across streams).
CREATE INDEX events_correlation_id ON events ((metadata ->> 'correlationId'))
  WHERE metadata ? 'correlationId';

-- Down Migration
DROP INDEX events_correlation_id;
DROP TABLE projection_lag_samples;
DROP TABLE operator_sessions;
DROP TABLE operators;
