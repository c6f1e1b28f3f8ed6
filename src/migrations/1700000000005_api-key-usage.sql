-- Up Migration

-- When each API key was last used: telemetry, not a business fact, so it is not an event (see
-- src/auth/last-used.ts). It lives here, outside the api_keys read model, so that rebuilding that
-- projection (blue/green, from the log) cannot lose it. Earlier versions kept it in api_keys itself:
-- what they recorded is carried over.
CREATE TABLE api_key_usage (
  key_id       text PRIMARY KEY,
  last_used_at timestamptz NOT NULL
);

DO $$
BEGIN
  IF to_regclass('api_keys') IS NOT NULL AND EXISTS (
    SELECT 1 FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'api_keys' AND column_name = 'last_used_at'
  ) THEN
    EXECUTE 'INSERT INTO api_key_usage (key_id, last_used_at)
             SELECT key_id, last_used_at FROM api_keys WHERE last_used_at IS NOT NULL';
  END IF;
END
$$;

-- Down Migration
DROP TABLE api_key_usage;
