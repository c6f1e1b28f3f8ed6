-- Up Migration

-- The data keys of workspace secrets (src/domain/secrets/data-keys.ts), one row per secret version
-- whose value some event holds encrypted under it. Deliberately not a projection: the event log is
-- append-only, so a value leaves it only by losing the key that decrypts it (crypto-shredding).
-- Deleting a secret, or replacing its value, deletes the row; nothing can rebuild it, because no
-- event holds the key. A projection rebuild, by contrast, recreates its tables from the log.
--
-- wrapped_key: the data key encrypted (AES-256-GCM) under the master key named by master_key_id,
-- which lives outside the database (SECRETS_MASTER_KEY or the key file under DATA_DIR).
-- masked_value: what the API shows of the value (eight bullets and at most its last 4 characters),
-- computed when the value was written; kept here, not in an event, so that it goes with the key.
-- last_used_at: telemetry of this version (as api_key_usage is for API keys), written off the path.
CREATE TABLE secret_data_keys (
  key_id          text PRIMARY KEY,
  organization_id text NOT NULL,
  secret_name     text NOT NULL,
  master_key_id   text NOT NULL,
  wrapped_key     text NOT NULL,
  masked_value    text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  last_used_at    timestamptz
);

CREATE INDEX secret_data_keys_by_secret ON secret_data_keys (organization_id, secret_name);
-- What a master-key rotation still has to re-wrap.
CREATE INDEX secret_data_keys_by_master_key ON secret_data_keys (master_key_id);

-- Down Migration
DROP TABLE secret_data_keys;
