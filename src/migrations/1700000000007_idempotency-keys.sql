-- Up Migration

-- Idempotency-Key of POST requests (src/http/idempotency.ts): per organization, the request's hash and,
-- once it has answered, its answer, replayed to a retry with the same key and the same request. Not an
-- event and not a read model: an answer is not a business fact, and a projection rebuild must not
-- forget which requests were already served. Kept at least 24 hours; older rows are taken over by a
-- new request with their key, and swept away in small batches.
CREATE TABLE idempotency_keys (
  organization_id text NOT NULL,
  key             text NOT NULL,
  request_hash    text NOT NULL,
  -- pending: the first request is being served; done: its answer is below.
  state           text NOT NULL CHECK (state IN ('pending', 'done')),
  status          integer,
  headers         jsonb,
  body            text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, key)
);

CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

-- Down Migration
DROP TABLE idempotency_keys;
